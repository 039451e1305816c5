#include "uploadservice.h"

#include "workers/ledgerstore.h"

#include "core/sha256.h"
#include "core/sha256stream.h"
#include "store/sql.h"
#include "store/sqlliteral.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QUuid>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ddl::server {

QJsonObject UploadState::toJson() const
{
    return {{QStringLiteral("id"), id},
            // Null until the client has sent the digest (an upload created without one).
            {QStringLiteral("sha256"), sha256.isEmpty() ? QJsonValue() : QJsonValue(sha256)},
            {QStringLiteral("size"), size},
            {QStringLiteral("offset"), offset},
            {QStringLiteral("complete"), complete}};
}

UploadService::UploadService(const QSqlDatabase &db,
                             const BlobStorage &storage,
                             qint64 maxBlobBytes)
    : m_db(db)
    , m_storage(storage)
    , m_maxBlobBytes(maxBlobBytes)
{
}

static Error uploadNotFound(const QString &uploadId)
{
    return Error::make(ErrorCode::NotFound,
                       QStringLiteral("no upload %1; it may have completed or expired, create it "
                                      "again")
                           .arg(uploadId),
                       QStringLiteral("id"));
}

Result<UploadState> UploadService::create(const QString &owner, qint64 size, const QString &sha256)
{
    // No digest: the client sends while it hashes, and names the digest on a later chunk.
    if (!sha256.isEmpty() && !isSha256Hex(sha256)) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("sha256 must be 64 lowercase hex characters"),
                           QStringLiteral("sha256"));
    }
    if (sha256.isEmpty() && size == 0) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("an empty blob needs its sha256 at creation"),
                           QStringLiteral("sha256"));
    }
    if (size < 0) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("size must be the blob's length in bytes (>= 0)"),
                           QStringLiteral("size"));
    }
    if (size > m_maxBlobBytes) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("size %1 is over the server's limit of %2 bytes")
                               .arg(size)
                               .arg(m_maxBlobBytes),
                           QStringLiteral("size"));
    }
    if (!sha256.isEmpty()) {
        if (ownsBlob(owner, sha256) && locator().has(sha256))
            return UploadState{QString(), sha256, size, size, true};
        // The furthest unfinished upload of these bytes goes on, one begun without a digest too
        // once a chunk has named it (a client killed half-way resumes).
        Result<QSqlQuery> existing =
            runSql(m_db,
                   QStringLiteral("SELECT id, \"offset\" FROM uploads WHERE owner = ? AND "
                                  "sha256 = ? AND size = ? ORDER BY \"offset\" DESC"),
                   {owner, sha256, size});
        if (!existing)
            return existing.error();
        if (existing->next()) {
            const UploadState found{existing->value(u"id"_s).toString(),
                                    sha256,
                                    size,
                                    existing->value(u"offset"_s).toLongLong(),
                                    false};
            existing->finish(); // its read ends before finishInterrupted writes (runSql)
            return finishInterrupted(owner, found);
        }
    }

    UploadState upload{QUuid::createUuid().toString(QUuid::Id128), sha256, size, 0, false};
    Result<QSqlQuery> insert =
        runSql(m_db,
               QStringLiteral("INSERT INTO uploads (id, owner, sha256, size, "
                              "\"offset\", updated_at) VALUES (?, ?, ?, ?, 0, ?)"),
               // Not a null QString: the drivers would bind NULL.
               {upload.id, owner, sha256.isEmpty() ? u""_s : sha256, size, nowMs()});
    if (!insert)
        return insert.error();
    if (size == 0)
        return writeChunk(owner, upload.id, 0, {});
    return upload;
}

Result<UploadState> UploadService::state(const QString &owner, const QString &uploadId)
{
    Result<QSqlQuery> query =
        runSql(m_db,
               QStringLiteral("SELECT sha256, size, \"offset\" FROM uploads WHERE "
                              "id = ? AND owner = ?"),
               {uploadId, owner});
    if (!query)
        return query.error();
    if (!query->next())
        return uploadNotFound(uploadId);
    const UploadState upload{uploadId,
                             query->value(u"sha256"_s).toString(),
                             query->value(u"size"_s).toLongLong(),
                             query->value(u"offset"_s).toLongLong(),
                             false};
    query->finish(); // its read ends before finishInterrupted writes (runSql)
    return finishInterrupted(owner, upload);
}

// A crash after an upload's last chunk was recorded but before the upload became a blob (moved
// into place, recorded, forgotten) leaves its row at offset == size, its bytes in the part file
// or already in place: finish what the crash interrupted, checking the digest from the saved
// hash state as commitChunk would have.
Result<UploadState> UploadService::finishInterrupted(const QString &owner, UploadState upload)
{
    if (upload.size == 0 || upload.offset != upload.size)
        return upload;
    Result<Sha256Stream> hash = hashSoFar(upload.id, upload.offset);
    if (!hash)
        return hash.error();
    if (Status completed = completeUpload(owner, upload, hash->finishHex()); !completed)
        return completed.error();
    upload.complete = true;
    return upload;
}

Result<UploadState> UploadService::writeChunk(const QString &owner,
                                              const QString &uploadId,
                                              qint64 offset,
                                              const QByteArray &bytes)
{
    if (bytes.size() > MaxBufferedChunkBytes) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("a chunk of %1 bytes is over this route's limit of %2 "
                                          "bytes; send smaller chunks")
                               .arg(bytes.size())
                               .arg(MaxBufferedChunkBytes));
    }
    Result<ChunkSink> sink = beginChunk(owner, uploadId, offset, bytes.size());
    if (!sink)
        return sink.error();
    if (Status written = sink->write(bytes); !written)
        return written.error();
    return commitChunk(owner, uploadId, std::move(*sink));
}

Result<ChunkSink> UploadService::beginChunk(const QString &owner,
                                            const QString &uploadId,
                                            qint64 offset,
                                            qint64 length,
                                            const QString &sha256)
{
    Result<UploadState> upload = state(owner, uploadId);
    if (!upload)
        return upload.error();
    if (const auto open = m_open->ends.constFind(uploadId); open != m_open->ends.cend()) {
        if (*open == offset) {
            return Error::make(
                ErrorCode::ChunkPending,
                QStringLiteral("the chunk before offset %1 is still arriving").arg(offset));
        }
        return Error::make(ErrorCode::Conflict,
                           QStringLiteral("another chunk of upload %1 is being received; wait for "
                                          "it, then ask the upload's offset")
                               .arg(uploadId));
    }
    if (offset != upload->offset) {
        Error error = Error::make(ErrorCode::OffsetMismatch,
                                  QStringLiteral("chunk sent at offset %1 but the upload is at "
                                                 "%2; send from %2")
                                      .arg(offset)
                                      .arg(upload->offset),
                                  QStringLiteral("offset"));
        error.details.insert(QStringLiteral("offset"), upload->offset);
        return error;
    }
    if (length < 0 || offset + length > upload->size) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("a chunk of %1 bytes at offset %2 passes the declared "
                                          "size %3")
                               .arg(length)
                               .arg(offset)
                               .arg(upload->size));
    }
    if (Status named = nameDigest(*upload, offset + length, sha256); !named)
        return named.error();
    Result<Sha256Stream> hash = hashSoFar(uploadId, offset);
    if (!hash)
        return hash.error();
    Result<int> fd = m_storage.openPartAt(uploadId, offset);
    if (!fd) {
        // Its bytes are gone: the row goes too, or the next create() would resume onto nothing.
        if (fd.error().is(ErrorCode::NotFound))
            (void) abandon(owner, uploadId);
        return fd.error();
    }
    m_open->ends.insert(uploadId, offset + length);
    return ChunkSink(
        *fd, m_storage.partPath(uploadId), offset, length, *hash, [open = m_open, uploadId] {
            open->release(uploadId);
        });
}

Status UploadService::nameDigest(const UploadState &upload, qint64 chunkEnd, const QString &sha256)
{
    if (sha256.isEmpty()) {
        if (upload.sha256.isEmpty() && chunkEnd == upload.size) {
            return Error::make(ErrorCode::BadRequest,
                               QStringLiteral("the last chunk of upload %1 needs a DDL-Sha256 "
                                              "header: the upload was created without a digest "
                                              "and none was sent yet")
                                   .arg(upload.id),
                               QStringLiteral("DDL-Sha256"));
        }
        return Ok{};
    }
    if (!isSha256Hex(sha256)) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("DDL-Sha256 must be 64 lowercase hex characters"),
                           QStringLiteral("DDL-Sha256"));
    }
    if (upload.sha256 == sha256)
        return Ok{};
    if (!upload.sha256.isEmpty()) {
        return Error::make(ErrorCode::Conflict,
                           QStringLiteral("DDL-Sha256 %1 is not upload %2's digest %3; create a "
                                          "new upload for other bytes")
                               .arg(sha256, upload.id, upload.sha256),
                           QStringLiteral("DDL-Sha256"));
    }
    // The bytes are still checked against it when the last one arrives (completeUpload).
    Result<QSqlQuery> update =
        runSql(m_db,
               QStringLiteral("UPDATE uploads SET sha256 = ? WHERE id = ? AND sha256 = ''"),
               {sha256, upload.id});
    if (!update)
        return update.error();
    return Ok{};
}

Status UploadService::abandon(const QString &owner, const QString &uploadId)
{
    Result<QSqlQuery> found =
        runSql(m_db,
               QStringLiteral("SELECT id FROM uploads WHERE id = ? AND owner = ?"),
               {uploadId, owner});
    if (!found)
        return found.error();
    if (!found->next())
        return uploadNotFound(uploadId);
    found->finish(); // its read ends before the DELETE (runSql)
    // The file goes first, as in completeUpload: a crash before the row is deleted leaves a row
    // that expires with its (absent) file, never a file that nothing removes. A chunk still
    // arriving writes on into the unlinked file; its commit finds no upload.
    m_storage.discard(uploadId);
    Result<QSqlQuery> deleted = runSql(
        m_db, QStringLiteral("DELETE FROM uploads WHERE id = ? AND owner = ?"), {uploadId, owner});
    if (!deleted)
        return deleted.error();
    return Ok{};
}

void UploadService::OpenChunks::release(const QString &uploadId)
{
    ends.remove(uploadId);
    for (std::function<void()> &waiter : waiters.take(uploadId))
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), std::move(waiter), Qt::QueuedConnection);
}

void UploadService::whenChunkEnds(const QString &uploadId, std::function<void()> whenFree)
{
    if (!m_open->ends.contains(uploadId)) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), std::move(whenFree), Qt::QueuedConnection);
        return;
    }
    m_open->waiters[uploadId].append(std::move(whenFree));
}

Result<Sha256Stream> UploadService::hashSoFar(const QString &uploadId, qint64 offset)
{
    if (offset == 0)
        return Sha256Stream();
    Result<QSqlQuery> query =
        runSql(m_db, QStringLiteral("SELECT hash_state FROM uploads WHERE id = ?"), {uploadId});
    if (!query)
        return query.error();
    if (query->next()) {
        if (std::optional<Sha256Stream> saved =
                Sha256Stream::restoreState(query->value(u"hash_state"_s).toByteArray())) {
            return *saved;
        }
    }
    // No saved state (an upload begun before hash states were kept): hash the prefix again.
    QFile part(m_storage.partPath(uploadId));
    if (!part.open(QIODevice::ReadOnly))
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot read %1: %2").arg(part.fileName(), part.errorString()));
    Sha256Stream hash;
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    for (qint64 left = offset; left > 0;) {
        const qint64 n = part.read(buffer.data(), std::min<qint64>(left, buffer.size()));
        if (n <= 0)
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("%1 is shorter than its recorded offset").arg(part.fileName()));
        hash.add(QByteArrayView(buffer.constData(), n));
        left -= n;
    }
    return hash;
}

Result<UploadState> UploadService::commitChunk(const QString &owner,
                                               const QString &uploadId,
                                               ChunkSink sink,
                                               std::optional<uint32_t> expectedCrc32c)
{
    if (sink.remaining() != 0) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("the chunk ended after %1 of its %2 bytes; send it again "
                                          "from offset %3")
                               .arg(sink.received())
                               .arg(sink.length())
                               .arg(sink.offset()));
    }
    Result<UploadState> upload = state(owner, uploadId);
    if (!upload)
        return upload;
    // The offset is recorded only after the bytes are durable: a crash between the two leaves
    // extra bytes that the next chunk cuts away, never a gap.
    if (Status synced = sink.flushAndSync(); !synced)
        return synced.error();
    if (expectedCrc32c && *expectedCrc32c != sink.crc32c()) {
        Error error = Error::make(ErrorCode::ChunkCorrupted,
                                  QStringLiteral("the chunk's bytes do not match its CRC-32C "
                                                 "(%1 sent, %2 received); nothing was kept, send "
                                                 "it again from offset %3")
                                      .arg(*expectedCrc32c, 8, 16, QLatin1Char('0'))
                                      .arg(sink.crc32c(), 8, 16, QLatin1Char('0'))
                                      .arg(sink.offset()),
                                  QStringLiteral("DDL-Chunk-CRC32C"));
        error.details.insert(QStringLiteral("offset"), sink.offset());
        return error;
    }
    upload->offset = sink.offset() + sink.length();
    Sha256Stream hash = sink.hash();
    Result<QSqlQuery> update =
        runSql(m_db,
               QStringLiteral("UPDATE uploads SET \"offset\" = ?, hash_state = ?, "
                              "updated_at = ? WHERE id = ?"),
               {upload->offset, hash.saveState(), nowMs(), uploadId});
    if (!update)
        return update.error();
    if (upload->offset == upload->size) {
        if (Status completed = completeUpload(owner, *upload, hash.finishHex()); !completed)
            return completed.error();
        upload->complete = true;
    }
    return upload;
}

Status UploadService::completeUpload(const QString &owner,
                                     const UploadState &upload,
                                     const QString &digest)
{
    const auto forget = [&] {
        m_storage.discard(upload.id);
        (void)runSql(m_db, QStringLiteral("DELETE FROM uploads WHERE id = ?"), {upload.id});
    };
    if (digest != upload.sha256) {
        forget();
        return Error::make(ErrorCode::DigestMismatch,
                           QStringLiteral("the uploaded bytes have sha256 %1, not the declared "
                                          "%2; the upload was discarded, upload the file again")
                               .arg(digest, upload.sha256),
                           QStringLiteral("sha256"));
    }
    // Bytes someone else already stored are kept once; ours were verified as they streamed.
    if (!locator().has(upload.sha256)) {
        if (Status moved = m_storage.moveIntoPlace(upload.id, upload.sha256); !moved) {
            forget();
            return moved;
        }
    }
    forget();
    Result<bool> stored = recordBlob(owner, upload.sha256, upload.size);
    if (!stored)
        return stored.error();
    // The ledger counts bytes the server did not hold before, not a resend of stored ones.
    if (*stored)
        LedgerStore(m_db).addUploadedBy(owner, upload.size);
    return Ok{};
}

Result<bool> UploadService::recordBlob(const QString &owner, const QString &sha256, qint64 size)
{
    Result<QSqlQuery> blob = runSql(m_db,
                                    QStringLiteral("INSERT INTO blobs (sha256, size, "
                                                   "created_at) VALUES (?, ?, ?) "
                                                   "ON CONFLICT DO NOTHING"),
                                    {sha256, size, nowMs()});
    if (!blob)
        return blob.error();
    const bool fresh = blob->numRowsAffected() > 0;
    if (Status referenced = addReference(owner, sha256); !referenced)
        return referenced.error();
    return fresh;
}

// Rows of a batch recorded per statement, their values written into the statement (sqlliteral):
// bound, their cost grew with the square of a statement's values.
static constexpr qsizetype RowsPerStatement = 500;

Status UploadService::recordBatch(const QSqlDatabase &db,
                                  const QString &owner,
                                  const QList<BlobBatch::Entry> &entries,
                                  const BlobBatch::Packed &packed)
{
    // Its turn among the store's writers, the event loop's too (WriteTurn), comes with it.
    Transaction transaction(db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    QHash<QString, qint64> sizes;
    for (const BlobBatch::Entry &entry : entries)
        sizes.insert(entry.sha256, entry.size);
    const QStringList digests = sizes.keys();
    const qint64 now = nowMs();
    const std::optional<QString> ownerText = sqlliteral::plainText(owner);
    const std::optional<QString> packText =
        packed.offsets.isEmpty() ? QString() : sqlliteral::plainText(packed.pack);
    if (!ownerText || !packText) {
        return Error::make(ErrorCode::Internal,
                           QStringLiteral("cannot record a batch of owner %1 in pack %2")
                               .arg(owner.left(80), packed.pack.left(80)));
    }
    qint64 bytes = 0; // of blobs the server did not hold before: resent ones count nothing
    for (qsizetype first = 0; first < digests.size(); first += RowsPerStatement) {
        const qsizetype rows = std::min(RowsPerStatement, digests.size() - first);
        QStringList blobRows;
        QStringList refRows;
        for (qsizetype i = first; i < first + rows; ++i) {
            const std::optional<QString> digest = sqlliteral::digest(digests.at(i));
            if (!digest) {
                return Error::make(
                    ErrorCode::BadRequest,
                    QStringLiteral("%1 is not a SHA-256 hex digest").arg(digests.at(i).left(80)),
                    QStringLiteral("sha256"));
            }
            // A blob held before the batch: its row exists and stays as it is (a repaired one
            // is moved below).
            const auto offset = packed.offsets.constFind(digests.at(i));
            const bool inPack = offset != packed.offsets.cend();
            const QString place =
                inPack ? *packText + u", "_s + QString::number(*offset) : u"NULL, NULL"_s;
            blobRows << u"("_s + *digest + u", "_s + QString::number(sizes.value(digests.at(i))) +
                            u", "_s + QString::number(now) + u", "_s + place + u")"_s;
            refRows << u"("_s + *ownerText + u", "_s + *digest + u")"_s;
        }
        // Only the rows that were new come back.
        Result<QSqlQuery> fresh =
            runSql(db,
                   u"INSERT INTO blobs (sha256, size, created_at, pack, pack_offset) VALUES %1 "
                   u"ON CONFLICT DO NOTHING RETURNING sha256"_s.arg(blobRows.join(u", ")));
        if (!fresh)
            return fresh.error();
        while (fresh->next())
            bytes += sizes.value(fresh->value(0).toString());
        fresh->finish(); // SQLite ends a statement only once finished; a COMMIT before fails
        Result<QSqlQuery> referenced =
            runSql(db,
                   u"INSERT INTO blob_refs (owner, sha256) VALUES %1 ON CONFLICT DO NOTHING"_s.arg(
                       refRows.join(u", ")));
        if (!referenced)
            return referenced.error();
    }
    // Blobs whose bytes were lost and are stored again: their rows point at the new copy.
    for (const QString &digest : packed.repairs) {
        Result<QSqlQuery> moved =
            runSql(db,
                   u"UPDATE blobs SET pack = ?, pack_offset = ? WHERE sha256 = ?"_s,
                   {packed.pack, packed.offsets.value(digest), digest});
        if (!moved)
            return moved.error();
    }
    if (Status committed = transaction.commit(); !committed)
        return committed;
    LedgerStore(db).addUploadedBy(owner, bytes);
    return Ok{};
}

int UploadService::sweepUnreferencedPacks(const QDateTime &modifiedSince)
{
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-3600);
    const QDir packs(QFileInfo(m_storage.packPath(u"x"_s)).absolutePath());
    QStringList candidates;
    for (const QFileInfo &pack : packs.entryInfoList({u"*.pack"_s}, QDir::Files)) {
        const QDateTime modified = pack.lastModified();
        if (modified < before && (!modifiedSince.isValid() || modified >= modifiedSince))
            candidates << pack.fileName();
    }
    // One look-up a candidate, on the index of blobs(pack).
    int removed = 0;
    for (const QString &name : std::as_const(candidates)) {
        Result<QSqlQuery> used =
            runSql(m_db, u"SELECT 1 FROM blobs WHERE pack = ? LIMIT 1"_s, {name});
        if (used && !used->next() && QFile::remove(packs.filePath(name)))
            ++removed;
    }
    return removed;
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
                                      QStringLiteral("INSERT INTO blob_refs (owner, "
                                                     "sha256) VALUES (?, ?) "
                                                     "ON CONFLICT DO NOTHING"),
                                      {owner, sha256});
    if (!insert)
        return insert.error();
    return Ok{};
}

void UploadService::expireAbandoned()
{
    Result<QSqlQuery> stale = runSql(m_db,
                                     QStringLiteral("SELECT id FROM uploads WHERE updated_at < ?"),
                                     {nowMs() - UploadExpiryMs});
    if (!stale)
        return;
    QStringList ids;
    while (stale->next())
        ids.append(stale->value(u"id"_s).toString());
    stale->finish(); // its read ends before the DELETEs (runSql)
    for (const QString &id : std::as_const(ids)) {
        m_storage.discard(id);
        (void)runSql(m_db, QStringLiteral("DELETE FROM uploads WHERE id = ?"), {id});
    }
}

} // namespace ddl::server
