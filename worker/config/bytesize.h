#pragma once

#include "core/result.h"

#include <QString>

namespace ddl::worker {

// "20G", "512M", "1.5T", "4096": bytes, with K, M, G, T as powers of 1024 (a trailing "B" or
// "iB" is allowed). Errors say what was given and what is expected.
Result<qint64> parseByteSize(const QString &text);
// 21474836480 → "20.0 GiB", as the worker's logs show sizes.
QString formatByteSize(qint64 bytes);

} // namespace ddl::worker
