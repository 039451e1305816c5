#pragma once

#include "core/result.h"

#include <QString>

namespace ddl {
class DatasetManifest;
} // namespace ddl

namespace ddl::worker {

// How a dataset folder was made: files hard-linked to their cached blob, and files copied
// (another file system, too many links, or an executable file: see layOutDataset).
struct LayoutStats
{
    qint64 links = 0;
    qint64 copies = 0;
};

// Lays out the files of manifest under destination from the verified blobs in blobDir (each
// must be there). The folder is built beside destination under a ".partial-" name and renamed
// into place at the end, so a folder under the final name is always complete; on failure the
// partial folder is removed. Files are hard links to their blobs, which are made read-only first
// so that no link can change a cached blob in place. An executable file is a copy with mode
// 0555, as a link would make the blob executable for every dataset that holds it. Every blob
// used is marked used (markUsed). Safe to call from a worker thread.
Result<LayoutStats>
layOutDataset(const DatasetManifest &manifest, const QString &blobDir, const QString &destination);

// Sets the modification time of path to now: the cache's record of its last use (the janitor
// evicts the least recently used first). Through a hard link this marks the blob as well.
void markUsed(const QString &path);
// markUsed on folder and every file below it. Safe to call from a worker thread.
void markTreeUsed(const QString &folder);
// chmod 0444 unless it already is.
Status makeReadOnly(const QString &path);

} // namespace ddl::worker
