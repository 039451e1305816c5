#include "datasetservice.h"

#include "blobs/bloblocator.h"
#include "blobs/uploadservice.h"
#include "core/sha256.h"
#include "core/sha256stream.h"
#include "store/sql.h"
#include "store/sqlliteral.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

using namespace Qt::StringLiterals;

namespace ddl::server {

static Error notADigest()
{
    return Error::make(ErrorCode::BadManifest,
                       QStringLiteral("the manifest names a digest that is not 64 lowercase hex "
                                      "digits"),
                       QStringLiteral("manifest_sha256"));
}

static Error datasetNotFound(const QString &name)
{
    return Error::make(ErrorCode::NotFound,
                       QStringLiteral("no dataset named %1; see ddlcli dataset list").arg(name),
                       QStringLiteral("name"));
}

DatasetService::DatasetService(const QSqlDatabase &db,
                               const BlobStorage &storage,
                               UploadService &uploads)
    : m_db(db)
    , m_storage(storage)
    , m_uploads(uploads)
{
}

Result<QStringList> DatasetService::missing(const QString &owner, const QStringList &sha256s)
{
    if (sha256s.size() > DatasetManifest::MaxFiles) {
        return Error::make(
            ErrorCode::PayloadTooLarge,
            QStringLiteral("ask about at most %1 digests at once").arg(DatasetManifest::MaxFiles),
            QStringLiteral("sha256"));
    }
    QHash<QString, QString> ownedRecorded; // digest -> pack (empty for a file of its own)
    // 1,000 digests a statement, written into it (sqlliteral): bound, they cost time that
    // grows with the square of their count.
    constexpr qsizetype Batch = 1000;
    for (qsizetype start = 0; start < sha256s.size(); start += Batch) {
        const QStringList part = sha256s.mid(start, Batch);
        for (const QString &sha : part) {
            if (!isSha256Hex(sha))
                return Error::make(
                    ErrorCode::BadRequest,
                    QStringLiteral("%1 is not a SHA-256 hex digest").arg(sha.left(80)),
                    QStringLiteral("sha256"));
        }
        Result<QSqlQuery> query = runSql(m_db,
                                         QStringLiteral("SELECT r.sha256, b.pack FROM blob_refs r "
                                                        "JOIN blobs b ON b.sha256 = r.sha256 "
                                                        "WHERE r.owner = ? AND r.sha256 IN (%1)")
                                             .arg(*sqlliteral::digestList(part)),
                                         {owner});
        if (!query)
            return query.error();
        while (query->next())
            ownedRecorded.insert(query->value(0).toString(), query->value(1).toString());
    }
    // Recorded and its bytes there (the same test as a batch's): a lost blob is reported
    // missing, so the client uploads it again.
    const QSet<QString> owned = BlobLocator::present(m_storage, ownedRecorded);
    QStringList result;
    QSet<QString> seen;
    for (const QString &sha : sha256s) {
        if (!owned.contains(sha) && !seen.contains(sha)) {
            result << sha;
            seen.insert(sha);
        }
    }
    return result;
}

Result<DatasetManifest> DatasetService::loadManifest(const QString &owner,
                                                     const QString &manifestSha256,
                                                     qsizetype maxFiles,
                                                     qint64 maxJsonBytes)
{
    const auto notOwned = [&] {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("manifest %1 names no blob you uploaded; upload the "
                                          "manifest first")
                               .arg(manifestSha256.left(64)),
                           QStringLiteral("manifest_sha256"));
    };
    if (!isSha256Hex(manifestSha256) || !m_uploads.ownsBlob(owner, manifestSha256))
        return notOwned();
    const BlobLocator blobs(m_db, m_storage);
    const std::optional<BlobLocation> location = blobs.locate(manifestSha256);
    if (!location)
        return notOwned();
    if (location->length > maxJsonBytes) {
        return Error::make(maxJsonBytes < DatasetManifest::MaxJsonBytes ? ErrorCode::PayloadTooLarge
                                                                        : ErrorCode::BadManifest,
                           QStringLiteral("the manifest holds %1 bytes of JSON, over the %2 "
                                          "this server reads of one")
                               .arg(location->length)
                               .arg(maxJsonBytes),
                           QStringLiteral("manifest_sha256"));
    }
    Result<QByteArray> json = blobs.read(manifestSha256, maxJsonBytes);
    if (!json)
        return json.error();
    Result<DatasetManifest> manifest = DatasetManifest::parse(*json);
    if (!manifest)
        return manifest.error();
    if (manifest->files().size() > maxFiles) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("the manifest lists %1 files, over the %2 this server "
                                          "takes in one")
                               .arg(manifest->files().size())
                               .arg(maxFiles),
                           QStringLiteral("manifest_sha256"));
    }
    QStringList files;
    for (const ManifestFile &entry : manifest->files())
        files << entry.sha256;
    Result<QStringList> absent = missing(owner, files);
    if (!absent)
        return absent.error();
    if (!absent->isEmpty()) {
        Error error = Error::make(ErrorCode::BadRequest,
                                  QStringLiteral("%1 file(s) of the manifest are not uploaded yet "
                                                 "(first: %2); upload them, then try again")
                                      .arg(absent->size())
                                      .arg(absent->first()),
                                  QStringLiteral("manifest_sha256"));
        error.details.insert(QStringLiteral("missing"),
                             QJsonArray::fromStringList(absent->mid(0, 100)));
        return error;
    }
    return manifest;
}

Result<qint64> DatasetService::storedSize(const DatasetManifest &manifest)
{
    QHash<QString, qint64> stored;
    // 1,000 digests a statement, written into it (sqlliteral; parse checked them).
    constexpr qsizetype Batch = 1000;
    const QList<ManifestFile> &files = manifest.files();
    for (qsizetype start = 0; start < files.size(); start += Batch) {
        const qsizetype count = std::min(Batch, files.size() - start);
        QStringList digests;
        for (qsizetype i = start; i < start + count; ++i)
            digests << files[i].sha256;
        const std::optional<QString> list = sqlliteral::digestList(digests);
        if (!list)
            return notADigest();
        Result<QSqlQuery> query = runSql(
            m_db, QStringLiteral("SELECT sha256, size FROM blobs WHERE sha256 IN (%1)").arg(*list));
        if (!query)
            return query.error();
        while (query->next())
            stored.insert(query->value(u"sha256"_s).toString(),
                          query->value(u"size"_s).toLongLong());
    }
    qint64 total = 0;
    for (const ManifestFile &file : files) {
        const qint64 size = stored.value(file.sha256, -1);
        if (size != file.size) {
            return Error::make(ErrorCode::BadRequest,
                               QStringLiteral("the manifest says %1 holds %2 bytes, but its "
                                              "uploaded blob holds %3; list each file's real size")
                                   .arg(file.path.left(200))
                                   .arg(file.size)
                                   .arg(size),
                               QStringLiteral("manifest_sha256"));
        }
        total += size;
    }
    return total;
}

Status DatasetService::registerManifest(const QString &manifestSha256,
                                        const DatasetManifest &manifest)
{
    Result<QSqlQuery> known = runSql(m_db,
                                     QStringLiteral("SELECT 1 FROM manifest_files WHERE "
                                                    "manifest_sha256 = ? LIMIT 1"),
                                     {manifestSha256});
    if (!known)
        return known.error();
    if (known->next() || manifest.files().isEmpty())
        return Ok{};
    known->finish();
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    // 500 rows a statement, written into it (sqlliteral; parse checked the digests): 10,000
    // one-row statements took 85 ms of the event loop.
    constexpr qsizetype Rows = 500;
    const std::optional<QString> manifestText = sqlliteral::digest(manifestSha256);
    if (!manifestText)
        return notADigest();
    const QList<ManifestFile> &files = manifest.files();
    for (qsizetype first = 0; first < files.size(); first += Rows) {
        const qsizetype rows = std::min(Rows, files.size() - first);
        QStringList values;
        for (qsizetype i = first; i < first + rows; ++i) {
            const std::optional<QString> file = sqlliteral::digest(files[i].sha256);
            if (!file)
                return notADigest();
            values << u"("_s + *manifestText + u", "_s + *file + u")"_s;
        }
        Result<QSqlQuery> insert =
            runSql(m_db,
                   u"INSERT INTO manifest_files (manifest_sha256, sha256) VALUES %1 "
                   u"ON CONFLICT DO NOTHING"_s.arg(values.join(u", ")));
        if (!insert)
            return insert.error();
    }
    return transaction.commit();
}

static Status checkName(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"));
    if (!valid.match(name).hasMatch()) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("a dataset name is 1-100 letters, digits, '.', '_' or "
                                          "'-', starting with a letter or digit"),
                           QStringLiteral("name"));
    }
    return Ok{};
}

Result<QJsonObject>
DatasetService::create(qint64 userId, const QString &name, const QString &manifestSha256)
{
    if (Status named = checkName(name); !named)
        return named.error();
    Result<DatasetManifest> manifest =
        loadManifest(UploadService::userOwner(userId), manifestSha256);
    if (!manifest)
        return manifest.error();
    if (Status registered = registerManifest(manifestSha256, *manifest); !registered)
        return registered.error();
    Result<QSqlQuery> upsert = runSql(
        m_db,
        QStringLiteral("INSERT INTO datasets (owner_id, name, manifest_sha256, file_count, "
                       "total_size, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner_id, "
                       "name) DO UPDATE SET manifest_sha256 = excluded.manifest_sha256, "
                       "file_count = excluded.file_count, total_size = excluded.total_size, "
                       "created_at = excluded.created_at"),
        {userId,
         name,
         manifestSha256,
         qint64(manifest->files().size()),
         manifest->totalSize(),
         nowMs()});
    if (!upsert)
        return upsert.error();
    return summary(userId, name);
}

Result<QJsonObject> DatasetService::summary(qint64 userId, const QString &name)
{
    Result<QSqlQuery> query =
        runSql(m_db,
               QStringLiteral("SELECT manifest_sha256, file_count, total_size, "
                              "created_at FROM datasets WHERE owner_id = ? "
                              "AND name = ?"),
               {userId, name});
    if (!query)
        return query.error();
    if (!query->next())
        return datasetNotFound(name);
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("manifest_sha256"), query->value(u"manifest_sha256"_s).toString()},
        {QStringLiteral("file_count"), query->value(u"file_count"_s).toLongLong()},
        {QStringLiteral("total_size"), query->value(u"total_size"_s).toLongLong()},
        {QStringLiteral("created_at"), isoTime(query->value(u"created_at"_s).toLongLong())}};
}

Result<QJsonObject> DatasetService::list(qint64 userId)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT name FROM datasets WHERE owner_id = ? "
                                                    "ORDER BY name"),
                                     {userId});
    if (!query)
        return query.error();
    QStringList names;
    while (query->next())
        names << query->value(u"name"_s).toString();
    query->finish();
    QJsonArray datasets;
    for (const QString &name : std::as_const(names)) {
        Result<QJsonObject> entry = summary(userId, name);
        if (!entry)
            return entry.error();
        datasets.append(*entry);
    }
    return QJsonObject{{QStringLiteral("datasets"), datasets}};
}

Result<QJsonObject> DatasetService::get(qint64 userId, const QString &name)
{
    Result<QJsonObject> entry = summary(userId, name);
    if (!entry)
        return entry;
    Result<DatasetManifest> manifest =
        loadManifest(UploadService::userOwner(userId),
                     entry->value(QStringLiteral("manifest_sha256")).toString());
    if (!manifest)
        return manifest.error();
    QJsonArray files;
    for (const ManifestFile &file : manifest->files()) {
        QJsonObject item{{QStringLiteral("path"), file.path},
                         {QStringLiteral("size"), file.size},
                         {QStringLiteral("sha256"), file.sha256}};
        if (file.executable)
            item.insert(QStringLiteral("executable"), true);
        files.append(item);
    }
    entry->insert(QStringLiteral("files"), files);
    return entry;
}

Result<QJsonObject> DatasetService::remove(qint64 userId, const QString &name)
{
    Result<QJsonObject> entry = summary(userId, name);
    if (!entry)
        return entry;
    // The blobs stay: jobs that ran on this dataset still name them.
    Result<QSqlQuery> erase = runSql(m_db,
                                     QStringLiteral("DELETE FROM datasets WHERE owner_id = ? AND "
                                                    "name = ?"),
                                     {userId, name});
    if (!erase)
        return erase.error();
    return QJsonObject{{QStringLiteral("deleted"), name}};
}

Result<QString> DatasetService::manifestForJob(qint64 userId, const QJsonObject &dataset)
{
    QString sha = dataset.value(QStringLiteral("manifest")).toString();
    if (dataset.contains(QStringLiteral("name"))) {
        Result<QJsonObject> entry =
            summary(userId, dataset.value(QStringLiteral("name")).toString());
        if (!entry)
            return entry.error();
        sha = entry->value(QStringLiteral("manifest_sha256")).toString();
    }
    Result<DatasetManifest> manifest = loadManifest(UploadService::userOwner(userId), sha);
    if (!manifest) {
        Error error = manifest.error();
        error.field = QStringLiteral("dataset.manifest");
        return error;
    }
    if (Status registered = registerManifest(sha, *manifest); !registered)
        return registered.error();
    return sha;
}

Result<DatasetManifest> DatasetService::acceptManifest(qint64 userId, const QString &manifestSha256)
{
    return acceptManifest(UploadService::userOwner(userId), manifestSha256);
}

Result<DatasetManifest> DatasetService::acceptManifest(const QString &owner,
                                                       const QString &manifestSha256)
{
    Result<DatasetManifest> manifest = loadManifest(owner, manifestSha256);
    if (!manifest)
        return manifest;
    if (Status registered = registerManifest(manifestSha256, *manifest); !registered)
        return registered.error();
    return manifest;
}

} // namespace ddl::server
