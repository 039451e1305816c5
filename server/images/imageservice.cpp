#include "imageservice.h"

#include "blobs/bloblocator.h"
#include "core/sha256.h"
#include "datasets/datasetservice.h"
#include "jobspec/jobspec.h"
#include "store/sql.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ddl::server {

static Error imageNotFound(const QString &name, const QString &field)
{
    return Error::make(ErrorCode::NotFound,
                       u"no image named %1; push it with ddlcli image push %1 (ddlcli image list "
                       "shows yours)"_s.arg(name.left(100)),
                       field);
}

static Error notALayout(const QString &why)
{
    return Error::make(ErrorCode::BadManifest,
                       u"the upload is not an OCI image layout: %1; push images with ddlcli image "
                       "push, which writes one with podman save --format oci-dir"_s.arg(why),
                       u"manifest_sha256"_s);
}

ImageService::ImageService(const QSqlDatabase &db,
                           const BlobStorage &storage,
                           DatasetService &datasets)
    : m_db(db)
    , m_storage(storage)
    , m_datasets(datasets)
{
}

// The same names as datasets: what ddl://NAME and a file name can hold.
static Status checkName(const QString &name)
{
    static const QRegularExpression valid(
        QRegularExpression::anchoredPattern(u"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"_s));
    if (!valid.match(name).hasMatch()) {
        return Error::make(ErrorCode::BadRequest,
                           u"an image name is 1-100 letters, digits, '.', '_' or '-', starting "
                           "with a letter or digit"_s,
                           u"name"_s);
    }
    return Ok{};
}

static const ManifestFile *fileAt(const DatasetManifest &layout, const QString &path)
{
    for (const ManifestFile &file : layout.files()) {
        if (file.path == path)
            return &file;
    }
    return nullptr;
}

Result<QString> ImageService::imageDigest(const QJsonObject &index, const DatasetManifest &layout)
{
    const QJsonArray manifests = index.value(u"manifests"_s).toArray();
    if (manifests.size() != 1)
        return notALayout(
            u"its index.json lists %1 image manifests, not one"_s.arg(manifests.size()));
    const QString digest = manifests.first().toObject().value(u"digest"_s).toString();
    const QString hex = digest.mid(7);
    if (!digest.startsWith("sha256:"_L1) || !isSha256Hex(hex))
        return notALayout(u"its index.json names the digest '%1'"_s.arg(digest.left(80)));
    const ManifestFile *manifest = fileAt(layout, u"blobs/sha256/"_s + hex);
    if (!manifest || manifest->sha256 != hex)
        return notALayout(u"the image manifest %1 is not in it"_s.arg(digest));
    return digest;
}

Result<QJsonObject>
ImageService::create(qint64 userId, const QString &name, const QString &manifestSha256)
{
    if (Status named = checkName(name); !named)
        return named.error();
    Result<DatasetManifest> layout = m_datasets.acceptManifest(userId, manifestSha256);
    if (!layout)
        return layout.error();
    const ManifestFile *indexFile = fileAt(*layout, u"index.json"_s);
    if (!indexFile || !fileAt(*layout, u"oci-layout"_s))
        return notALayout(u"it has no index.json and oci-layout at its root"_s);
    if (indexFile->size > MaxIndexBytes)
        return notALayout(u"its index.json is over %1 bytes"_s.arg(MaxIndexBytes));
    Result<QByteArray> index = BlobLocator(m_db, m_storage).read(indexFile->sha256, MaxIndexBytes);
    if (!index)
        return index.error();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(*index, &parseError);
    if (!document.isObject())
        return notALayout(
            u"its index.json is not a JSON object (%1)"_s.arg(parseError.errorString()));
    Result<QString> digest = imageDigest(document.object(), *layout);
    if (!digest)
        return digest.error();
    Result<QSqlQuery> upsert = runSql(
        m_db,
        u"INSERT INTO images (owner_id, name, manifest_sha256, digest, total_size, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner_id, name) DO UPDATE SET manifest_sha256 = "
        "excluded.manifest_sha256, digest = excluded.digest, total_size = excluded.total_size, "
        "created_at = excluded.created_at"_s,
        {userId, name, manifestSha256, *digest, layout->totalSize(), nowMs()});
    if (!upsert)
        return upsert.error();
    return summary(userId, name);
}

Result<QJsonObject> ImageService::summary(qint64 userId, const QString &name)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     u"SELECT name, manifest_sha256, digest, total_size, "
                                     "created_at FROM images WHERE owner_id = ? AND name = ?"_s,
                                     {userId, name});
    if (!query)
        return query.error();
    if (!query->next())
        return imageNotFound(name, u"name"_s);
    const QSqlQuery &row = *query;
    return QJsonObject{{u"name"_s, row.value(u"name"_s).toString()},
                       {u"manifest_sha256"_s, row.value(u"manifest_sha256"_s).toString()},
                       {u"digest"_s, row.value(u"digest"_s).toString()},
                       {u"total_size"_s, row.value(u"total_size"_s).toLongLong()},
                       {u"created_at"_s, isoTime(row.value(u"created_at"_s).toLongLong())}};
}

Result<QJsonObject> ImageService::list(qint64 userId)
{
    Result<QSqlQuery> query =
        runSql(m_db, u"SELECT name FROM images WHERE owner_id = ? ORDER BY name"_s, {userId});
    if (!query)
        return query.error();
    QStringList names;
    while (query->next())
        names << query->value(u"name"_s).toString();
    query->finish();
    QJsonArray images;
    for (const QString &name : std::as_const(names)) {
        Result<QJsonObject> entry = summary(userId, name);
        if (!entry)
            return entry.error();
        images.append(*entry);
    }
    return QJsonObject{{u"images"_s, images}};
}

Result<QJsonObject> ImageService::remove(qint64 userId, const QString &name)
{
    Result<QJsonObject> entry = summary(userId, name);
    if (!entry)
        return entry;
    // The blobs stay: jobs that ran in this image still name them.
    Result<QSqlQuery> erase =
        runSql(m_db, u"DELETE FROM images WHERE owner_id = ? AND name = ?"_s, {userId, name});
    if (!erase)
        return erase.error();
    return QJsonObject{{u"deleted"_s, name}};
}

Result<QString> ImageService::manifestForJob(qint64 userId, const QString &image)
{
    const QString name = image.mid(JobSpec::ImageScheme.size());
    Result<QSqlQuery> query = runSql(m_db,
                                     u"SELECT manifest_sha256 FROM images WHERE owner_id = ? AND "
                                     "name = ?"_s,
                                     {userId, name});
    if (!query)
        return query.error();
    if (!query->next())
        return imageNotFound(name, u"image"_s);
    const QString sha = query->value(u"manifest_sha256"_s).toString();
    query->finish();
    // Checked again: the user's blobs are what the worker will be allowed to read.
    Result<DatasetManifest> layout = m_datasets.acceptManifest(userId, sha);
    if (!layout) {
        Error error = layout.error();
        error.field = u"image"_s;
        return error;
    }
    return sha;
}

} // namespace ddl::server
