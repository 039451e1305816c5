#pragma once

#include "core/result.h"
#include "packaging/datasetmanifest.h"

#include <QJsonObject>
#include <QSqlDatabase>
#include <QStringList>

namespace ddl::server {

class BlobStorage;
class UploadService;

// Named datasets and the manifests behind them. A manifest is a blob its owner uploaded; every
// file it lists must be a blob that owner has too, so a manifest can never hand someone bytes
// they could not already read. Registered manifests are remembered file by file
// (manifest_files), which is how a worker is allowed to fetch the files of its task's dataset.
class DatasetService
{
public:
    DatasetService(const QSqlDatabase &db, const BlobStorage &storage, UploadService &uploads);

    // Which of these digests the owner does not have on the server: what a client must upload.
    // Answers only about the owner's own blobs, never whether anyone else stored them.
    Result<QStringList> missing(const QString &owner, const QStringList &sha256s);

    Result<QJsonObject> create(qint64 userId, const QString &name, const QString &manifestSha256);
    Result<QJsonObject> list(qint64 userId);
    Result<QJsonObject> get(qint64 userId, const QString &name);
    Result<QJsonObject> remove(qint64 userId, const QString &name);

    // For a job submission: {"manifest": sha} or {"name": n} → the checked manifest's digest.
    Result<QString> manifestForJob(qint64 userId, const QJsonObject &dataset);
    // A manifest the user uploaded whose files they all have, remembered file by file so that a
    // worker running a job that names it may fetch them (images are such manifests too).
    Result<DatasetManifest> acceptManifest(qint64 userId, const QString &manifestSha256);

    // The steps of acceptManifest apart, for a caller with limits of its own (a task's
    // checkpoint, uploaded by "worker:<id>"): read and check the manifest (refused with 413 when
    // its JSON or its file count is over the given limits, before it is read or looked up), take
    // the size of its files from the stored blobs, then remember it file by file.
    Result<DatasetManifest> loadManifest(const QString &owner,
                                         const QString &manifestSha256,
                                         qsizetype maxFiles = DatasetManifest::MaxFiles,
                                         qint64 maxJsonBytes = DatasetManifest::MaxJsonBytes);
    // The bytes the manifest's files hold as stored, not as the manifest declares them: a file
    // whose declared size is not its blob's is refused (400).
    Result<qint64> storedSize(const DatasetManifest &manifest);
    Status registerManifest(const QString &manifestSha256, const DatasetManifest &manifest);

private:
    Result<DatasetManifest> acceptManifest(const QString &owner, const QString &manifestSha256);
    Result<QJsonObject> summary(qint64 userId, const QString &name);

    QSqlDatabase m_db;
    const BlobStorage &m_storage;
    UploadService &m_uploads;
};

} // namespace ddl::server
