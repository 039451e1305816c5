#include "uploadservice.h"

#include "core/sha256.h"
#include "store/sql.h"

#include <QUuid>

namespace ddl::server {

QJsonObject UploadState::toJson() const
{
    return {{QStringLiteral("id"), id},
            {QStringLiteral("sha256"), sha256},
            {QStringLiteral("size"), size},
            {QStringLiteral("offset"), offset},
            {QStringLiteral("complete"), complete}};
}

UploadService::UploadService(const QSqlDatabase &db, const BlobStorage &storage, qint64 maxBlobBytes)
    : m_db(db)
    , m_storage(storage)
    , m_maxBlobBytes(maxBlobBytes)
{}

static Error uploadNotFound(const QString &uploadId)
{
    return Error::make(QStringLiteral("not_found"),
                       QStringLiteral("no upload %1; it may have completed or expired, create it "
                                      "again")
                           .arg(uploadId),
                       QStringLiteral("id"));
}

Result<UploadState> UploadService::create(const QString &owner, qint64 size, const QString &sha256)
{
    if (!isSha256Hex(sha256)) {
        return Error::make(QStringLiteral("bad_request"),
                           QStringLiteral("sha256 must be 64 lowercase hex characters"),
                           QStringLiteral("sha256"));
    }
    if (size < 0) {
        return Error::make(QStringLiteral("bad_request"),
                           QStringLiteral("size must be the blob's length in bytes (>= 0)"),
                           QStringLiteral("size"));
    }
    if (size > m_maxBlobBytes) {
        return Error::make(QStringLiteral("payload_too_large"),
                           QStringLiteral("size %1 is over the server's limit of %2 bytes")
                               .arg(size)
                               .arg(m_maxBlobBytes),
                           QStringLiteral("size"));
    }
    if (ownsBlob(owner, sha256) && m_storage.hasBlob(sha256))
        return UploadState{QString(), sha256, size, size, true};

    Result<QSqlQuery> existing = runSql(m_db,
                                        QStringLiteral("SELECT id, offset FROM uploads WHERE owner "
                                                       "= ? AND sha256 = ? AND size = ?"),
                                        {owner, sha256, size});
    if (!existing)
        return existing.error();
    if (existing->next())
        return UploadState{existing->value(0).toString(), sha256, size,
                           existing->value(1).toLongLong(), false};

    UploadState upload{QUuid::createUuid().toString(QUuid::Id128), sha256, size, 0, false};
    Result<QSqlQuery> insert = runSql(m_db,
                                      QStringLiteral("INSERT INTO uploads (id, owner, sha256, size, "
                                                     "offset, updated_at) VALUES (?, ?, ?, ?, 0, ?)"),
                                      {upload.id, owner, sha256, size, nowMs()});
    if (!insert)
        return insert.error();
    if (size == 0) {
        if (Status written = m_storage.writeChunk(upload.id, 0, {}); !written)
            return written.error();
        if (Status completed = completeUpload(owner, upload); !completed)
            return completed.error();
        upload.complete = true;
    }
    return upload;
}

Result<UploadState> UploadService::state(const QString &owner, const QString &uploadId)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT sha256, size, offset FROM uploads WHERE "
                                                    "id = ? AND owner = ?"),
                                     {uploadId, owner});
    if (!query)
        return query.error();
    if (!query->next())
        return uploadNotFound(uploadId);
    return UploadState{uploadId, query->value(0).toString(), query->value(1).toLongLong(),
                       query->value(2).toLongLong(), false};
}

Result<UploadState> UploadService::writeChunk(const QString &owner, const QString &uploadId,
                                              qint64 offset, const QByteArray &bytes)
{
    Result<UploadState> upload = state(owner, uploadId);
    if (!upload)
        return upload;
    if (offset != upload->offset) {
        Error error = Error::make(QStringLiteral("offset_mismatch"),
                                  QStringLiteral("chunk sent at offset %1 but the upload is at "
                                                 "%2; send from %2")
                                      .arg(offset)
                                      .arg(upload->offset),
                                  QStringLiteral("offset"));
        error.details.insert(QStringLiteral("offset"), upload->offset);
        return error;
    }
    if (bytes.size() > MaxChunkBytes || offset + bytes.size() > upload->size) {
        return Error::make(QStringLiteral("payload_too_large"),
                           QStringLiteral("a chunk of %1 bytes at offset %2 passes the declared size "
                                          "%3 or the chunk limit of %4 bytes")
                               .arg(bytes.size())
                               .arg(offset)
                               .arg(upload->size)
                               .arg(MaxChunkBytes));
    }
    if (Status written = m_storage.writeChunk(uploadId, offset, bytes); !written)
        return written.error();
    upload->offset = offset + bytes.size();
    // The offset is recorded only after the bytes are fsynced: a crash between the two leaves
    // extra bytes that the next chunk cuts away, never a gap.
    Result<QSqlQuery> update = runSql(m_db,
                                      QStringLiteral("UPDATE uploads SET offset = ?, updated_at = ? "
                                                     "WHERE id = ?"),
                                      {upload->offset, nowMs(), uploadId});
    if (!update)
        return update.error();
    if (upload->offset == upload->size) {
        if (Status completed = completeUpload(owner, *upload); !completed)
            return completed.error();
        upload->complete = true;
    }
    return upload;
}

Status UploadService::completeUpload(const QString &owner, const UploadState &upload)
{
    const auto forget = [&] {
        (void) runSql(m_db, QStringLiteral("DELETE FROM uploads WHERE id = ?"), {upload.id});
    };
    if (m_storage.hasBlob(upload.sha256)) {
        // Someone already stored these bytes; check ours match before granting a reference.
        Result<QString> digest = sha256OfFile(m_storage.partPath(upload.id));
        m_storage.discard(upload.id);
        forget();
        if (!digest)
            return digest.error();
        if (*digest != upload.sha256) {
            return Error::make(QStringLiteral("digest_mismatch"),
                               QStringLiteral("the uploaded bytes have sha256 %1, not the declared "
                                              "%2; the upload was discarded, upload the file again")
                                   .arg(*digest, upload.sha256),
                               QStringLiteral("sha256"));
        }
    } else {
        Status finished = m_storage.finish(upload.id, upload.sha256);
        if (!finished) {
            forget();
            return finished;
        }
        forget();
    }
    Result<QSqlQuery> blob = runSql(m_db,
                                    QStringLiteral("INSERT OR IGNORE INTO blobs (sha256, size, "
                                                   "created_at) VALUES (?, ?, ?)"),
                                    {upload.sha256, upload.size, nowMs()});
    if (!blob)
        return blob.error();
    return addReference(owner, upload.sha256);
}

bool UploadService::ownsBlob(const QString &owner, const QString &sha256)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT 1 FROM blob_refs WHERE owner = ? AND "
                                                    "sha256 = ?"),
                                     {owner, sha256});
    return query && query->next();
}

Status UploadService::addReference(const QString &owner, const QString &sha256)
{
    Result<QSqlQuery> insert = runSql(m_db,
                                      QStringLiteral("INSERT OR IGNORE INTO blob_refs (owner, "
                                                     "sha256) VALUES (?, ?)"),
                                      {owner, sha256});
    if (!insert)
        return insert.error();
    return Ok{};
}

void UploadService::expireAbandoned()
{
    Result<QSqlQuery> stale = runSql(m_db, QStringLiteral("SELECT id FROM uploads WHERE updated_at < ?"),
                                     {nowMs() - UploadExpiryMs});
    if (!stale)
        return;
    while (stale->next()) {
        const QString id = stale->value(0).toString();
        m_storage.discard(id);
        (void) runSql(m_db, QStringLiteral("DELETE FROM uploads WHERE id = ?"), {id});
    }
}

} // namespace ddl::server
