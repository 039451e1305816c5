#pragma once

#include "core/result.h"

#include <QString>

namespace ddl::server {

// Where a blob's bytes lie: length bytes from offset in the file at path (a blob of its own at
// offset 0, or a pack holding many).
struct BlobLocation
{
    QString path;
    qint64 offset = 0;
    qint64 length = 0;
};

// The files behind blobs: DATA/blobs/ab/abcdef... once complete, DATA/uploads/<id>.part while
// an upload fills. A blob appears under its digest only by an atomic rename of a verified,
// fsynced file, so a crash never leaves a partial blob visible. The small blobs of batches lie
// in packs instead, DATA/packs/<uuid>.pack, their bytes back to back; where each one starts is
// in the store (BlobLocator), recorded only once its pack is durable.
class BlobStorage
{
public:
    explicit BlobStorage(const QString &dataDir);

    Status prepare() const;
    // The file of a blob stored on its own (readers ask BlobLocator, which also knows packs).
    QString blobPath(const QString &sha256) const;
    QString partPath(const QString &uploadId) const;
    QString packPath(const QString &packName) const;
    bool hasFile(const QString &sha256) const;
    bool hasPack(const QString &packName) const;

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
