#pragma once

#include "blobstorage.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

// Where an upload stands, as the wire reports it.
struct UploadState
{
    QString id;
    QString sha256;
    qint64 size = 0;
    qint64 offset = 0;
    bool complete = false;

    QJsonObject toJson() const;
};

// The resumable, content-addressed upload protocol (docs/api.md) and who owns which blob.
// Owners are "user:<id>" or "worker:<id>". A caller learns nothing about blobs it does not own:
// an upload of a blob the server already has from someone else still sends every byte.
class UploadService
{
public:
    static constexpr qint64 MaxChunkBytes = 8 * 1024 * 1024;
    static constexpr qint64 UploadExpiryMs = 7LL * 24 * 3600 * 1000;

    UploadService(const QSqlDatabase &db, const BlobStorage &storage, qint64 maxBlobBytes);

    Result<UploadState> create(const QString &owner, qint64 size, const QString &sha256);
    Result<UploadState> state(const QString &owner, const QString &uploadId);
    Result<UploadState> writeChunk(const QString &owner, const QString &uploadId, qint64 offset,
                                   const QByteArray &bytes);

    bool ownsBlob(const QString &owner, const QString &sha256);
    Status addReference(const QString &owner, const QString &sha256);
    // Drops uploads untouched for UploadExpiryMs, with their part files.
    void expireAbandoned();

private:
    Status completeUpload(const QString &owner, const UploadState &upload);

    QSqlDatabase m_db;
    BlobStorage m_storage;
    qint64 m_maxBlobBytes;
};

} // namespace ddl::server
