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

    // Writes bytes at offset of the part file (cut back to offset first, dropping bytes a crash
    // left past the last acknowledged offset) and fsyncs before returning.
    Status writeChunk(const QString &uploadId, qint64 offset, const QByteArray &bytes) const;
    // Verifies the part file's digest and moves it into place.
    Status finish(const QString &uploadId, const QString &sha256) const;
    void discard(const QString &uploadId) const;

private:
    QString m_dataDir;
};

} // namespace ddl::server
