#pragma once

#include "core/result.h"
#include "packaging/datasetmanifest.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>

namespace ddl::worker {

class BlobCache;

// Makes the folder of a manifest dataset, once per manifest: fetches the manifest blob through
// the cache, then every file blob the cache lacks (a few downloads at once, each by ranges, so
// memory stays bounded whatever the dataset's size), then lays the folder out as hard links to
// the blobs (layOutDataset) under cache/datasets/m-<manifest sha256>/. Later tasks find the
// folder in place. What it needs is pinned in the cache while it works, so that the janitor
// cannot take it; the task that asked pins the manifest, which keeps the folder, and the folder's
// links keep its blobs.
class DatasetMaterializer : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const Result<QString> &folder)>;
    static constexpr int ConcurrentDownloads = 4;

    explicit DatasetMaterializer(BlobCache *cache, QObject *parent = nullptr);

    QString folderPath(const QString &manifestSha256) const;
    // done(path of the dataset folder), from the event loop; dropped when context is gone.
    void fetch(const QString &manifestSha256, QObject *context, Callback done);

private:
    struct Waiter
    {
        QPointer<QObject> context;
        Callback done;
    };
    struct Build
    {
        QString manifestSha256;
        DatasetManifest manifest;
        QStringList missing; // digests of file blobs the cache lacks, each once
        qsizetype nextMissing = 0;
        int downloading = 0;
        bool failed = false;
        QList<Waiter> waiters;
    };
    struct Plan
    {
        DatasetManifest manifest;
        QStringList missing;
        qint64 missingBytes = 0;
    };

    void reuse(const QString &folder, QObject *context, Callback done);
    void readManifest(const std::shared_ptr<Build> &build, const QString &blob);
    void downloadMore(const std::shared_ptr<Build> &build);
    void layOut(const std::shared_ptr<Build> &build);
    void finish(const std::shared_ptr<Build> &build, const Result<QString> &result);
    static QString pinOwner(const QString &manifestSha256);

    BlobCache *m_cache;
    QHash<QString, std::shared_ptr<Build>> m_builds;
};

} // namespace ddl::worker
