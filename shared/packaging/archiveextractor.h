#pragma once

#include "core/result.h"

#include <QString>

namespace ddl {

// Caps that stop an archive from filling the disk or the inode table.
struct ExtractionLimits
{
    qint64 maxTotalBytes = qint64(64) << 30; // sum of the sizes of the regular files
    qint64 maxEntries = 1'000'000;           // entries of any kind
};

// What an extraction produced.
struct ExtractionInfo
{
    qint64 entryCount = 0;
    qint64 fileCount = 0;  // regular files
    qint64 totalBytes = 0; // sum of their sizes
};

// Extracts a tar or tar.zst into a folder, refusing anything that could write outside it:
// absolute paths, ".." components, paths through a symlink, symlinks that could point outside,
// hard links, devices, FIFOs and sockets, and archives over the limits. libarchive's secure
// flags stay on underneath. On any refusal or failure nothing extracted is left behind.
class ArchiveExtractor
{
public:
    explicit ArchiveExtractor(const ExtractionLimits &limits = {});

    // destination must not exist or be an empty folder. Errors: "unsafe_archive" (names the
    // entry and the reason), "archive_too_large", "corrupt_archive", "destination_not_empty",
    // "io_error".
    Result<ExtractionInfo> extract(const QString &archivePath, const QString &destination) const;

private:
    ExtractionLimits m_limits;
};

} // namespace ddl
