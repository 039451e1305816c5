#pragma once

#include "blobbatch.h"
#include "bloblocator.h"
#include "blobstorage.h"
#include "chunksink.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QSqlDatabase>

#include <functional>
#include <optional>

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
    // A chunk in one buffer (writeChunk) stays small; the streaming front (server/front) takes
    // a chunk of any length up to the declared size.
    static constexpr qint64 MaxBufferedChunkBytes = 8 * 1024 * 1024;
    static constexpr qint64 UploadExpiryMs = 7LL * 24 * 3600 * 1000;

    UploadService(const QSqlDatabase &db, const BlobStorage &storage, qint64 maxBlobBytes);

    // The owner name of a user's uploads ("user:<id>").
    static QString userOwner(qint64 userId) { return QStringLiteral("user:") + QString::number(userId); }
    static QString workerOwner(qint64 workerId)
    {
        return QStringLiteral("worker:") + QString::number(workerId);
    }

    // sha256 empty: an upload whose digest a later chunk names (beginChunk).
    Result<UploadState> create(const QString &owner, qint64 size, const QString &sha256);
    // DELETE /v1/uploads/<id>: the owner gives an unfinished upload up; its bytes are dropped.
    Status abandon(const QString &owner, const QString &uploadId);
    Result<UploadState> state(const QString &owner, const QString &uploadId);
    // A buffered chunk, in one call (an empty blob; tests and benchmarks).
    Result<UploadState> writeChunk(const QString &owner, const QString &uploadId, qint64 offset,
                                   const QByteArray &bytes);

    // A streamed chunk: beginChunk checks the offset and length before any byte is read (so a
    // wrong offset changes nothing and the body need not be received), the caller writes the
    // bytes into the sink, and commitChunk makes them durable and records the new offset.
    // Only one chunk of an upload is open at a time.
    // sha256: the chunk's DDL-Sha256 header, empty without one. It names the digest of an upload
    // created without one (a different one than already named is a conflict); the chunk that
    // completes such an upload is refused without it.
    Result<ChunkSink> beginChunk(const QString &owner,
                                 const QString &uploadId,
                                 qint64 offset,
                                 qint64 length,
                                 const QString &sha256 = {});
    // Calls whenFree (later, from the event loop) once the chunk now being received for uploadId
    // ends, committed or not. A client pipelines chunks: the next one, sent on another
    // connection, waits here (beginChunk says "chunk_pending") instead of being refused.
    void whenChunkEnds(const QString &uploadId, std::function<void()> whenFree);
    // expectedCrc32c: the client's CRC-32C of the chunk, when it sent one; a mismatch keeps
    // the upload at its old offset.
    Result<UploadState> commitChunk(const QString &owner, const QString &uploadId, ChunkSink sink,
                                    std::optional<uint32_t> expectedCrc32c = std::nullopt);

    const BlobStorage &storage() const { return m_storage; }
    BlobLocator locator() const { return BlobLocator(m_db, m_storage); }
    // The blobs of a batch BlobBatch::store packed (or found held): known, where they lie, and
    // owner's, in one transaction. A blob another batch recorded meanwhile keeps its first place;
    // one the batch repaired (packed.repairs: recorded, bytes lost) moves to its new copy.
    // Called on a batch pool thread, with that thread's own connection (Database::forThisThread
    // of connectionName()): the rows of a batch and its commit's sync took a third of the event
    // loop's time with many small files.
    static Status recordBatch(const QSqlDatabase &db,
                              const QString &owner,
                              const QList<BlobBatch::Entry> &entries,
                              const BlobBatch::Packed &packed);
    QString connectionName() const { return m_db.connectionName(); }

    // Removes packs older than an hour that no blob refers to: a crash between a batch's sync
    // and its transaction leaves one, and so does a batch whose every blob another batch (the
    // same files sent by two clients at once) recorded first. Only old ones: another server
    // sharing the data folder may be recording a batch now. At start every pack is looked at;
    // later (hourly) only those written since modifiedSince. Returns how many went.
    int sweepUnreferencedPacks(const QDateTime &modifiedSince = {});

    bool ownsBlob(const QString &owner, const QString &sha256);
    Status addReference(const QString &owner, const QString &sha256);
    // Drops uploads untouched for UploadExpiryMs, with their part files.
    void expireAbandoned();

private:
    Status nameDigest(const UploadState &upload, qint64 chunkEnd, const QString &sha256);
    Result<UploadState> finishInterrupted(const QString &owner, UploadState upload);
    Status completeUpload(const QString &owner, const UploadState &upload, const QString &digest);
    // A stored blob, known to the server and owned by owner; true when the server did not know
    // it before (new to owner only is false).
    Result<bool> recordBlob(const QString &owner, const QString &sha256, qint64 size);
    Result<Sha256Stream> hashSoFar(const QString &uploadId, qint64 offset);

    QSqlDatabase m_db;
    BlobStorage m_storage;
    qint64 m_maxBlobBytes;
    // Uploads with a chunk being received (and where that chunk ends), and who waits for them;
    // shared so a sink can outlive a copy of the service.
    struct OpenChunks
    {
        QHash<QString, qint64> ends;
        QHash<QString, QList<std::function<void()>>> waiters;
        void release(const QString &uploadId);
    };
    std::shared_ptr<OpenChunks> m_open = std::make_shared<OpenChunks>();
};

} // namespace ddl::server
