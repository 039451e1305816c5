#pragma once

#include "core/result.h"
#include "packaging/datasetmanifest.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

class BlobStorage;
class DatasetService;

// A user's images pushed to DDL (`ddlcli image push NAME`), named by jobs as ddl://NAME. An image
// is the OCI layout that `podman save --format oci-dir` writes (oci-layout, index.json,
// blobs/sha256/...), uploaded as a dataset manifest: every layer is a blob, sent once per user,
// so a push after a one-layer change sends that layer only. The manifest is checked as a
// dataset's is (every file a blob the user has), and its index.json must name one image manifest
// that the layout holds; that manifest's digest pins the image.
class ImageService
{
public:
    static constexpr qint64 MaxIndexBytes = 1 << 20;

    ImageService(const QSqlDatabase &db, const BlobStorage &storage, DatasetService &datasets);

    Result<QJsonObject> create(qint64 userId, const QString &name, const QString &manifestSha256);
    Result<QJsonObject> list(qint64 userId);
    Result<QJsonObject> remove(qint64 userId, const QString &name);
    // For a job naming ddl://NAME: the manifest of the user's image NAME (404 names it).
    Result<QString> manifestForJob(qint64 userId, const QString &image);

private:
    Result<QString> imageDigest(const QJsonObject &indexJson, const DatasetManifest &layout);
    Result<QJsonObject> summary(qint64 userId, const QString &name);

    QSqlDatabase m_db;
    const BlobStorage &m_storage;
    DatasetService &m_datasets;
};

} // namespace ddl::server
