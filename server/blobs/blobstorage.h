#pragma once

#include "core/result.h"

#include <QString>

namespace ddl::server {

// The files behind blobs: DATA/blobs/ab/abcdef... once complete, DATA/uploads/<id>.part while
// an upload fills. A blob appears under its digest only by an atomic rename of a verified,
// fsynced file, so a crash never leaves a partial blob visible.
class BlobStorage
{
public:
    explicit BlobStorage(const QString &dataDir);

    Status prepare() const;
    QString blobPath(const QString &sha256) const;
    QString partPath(const QString &uploadId) const;
    bool hasBlob(const QString &sha256) const;

    // Opens the part file for writing at offset, cut back to offset first (dropping bytes a crash
    // left past the last acknowledged offset). Returns the descriptor.
    Result<int> openPartAt(const QString &uploadId, qint64 offset) const;
    // Now: the rename is synced before returning; Later: the caller syncs many renames at once.
    enum class Sync { Now, Later };
    // Moves a part file whose digest the caller verified into place under sha256, durably.
    Status moveIntoPlace(const QString &uploadId, const QString &sha256,
                         Sync sync = Sync::Now) const;
    void discard(const QString &uploadId) const;

private:
    QString m_dataDir;
};

} // namespace ddl::server
