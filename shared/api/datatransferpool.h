#pragma once

#include <QThreadPool>

namespace ddl {

// The threads that move bulk bytes (BlobUpload, RangeDownload): blocking network I/O, so more of
// them than cores, and apart from QThreadPool::globalInstance() (hashing) so neither waits for
// the other.
QThreadPool *dataTransferThreads();

} // namespace ddl
