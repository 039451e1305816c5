#pragma once

#include "core/result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>

namespace ddl {
class ApiClient;
} // namespace ddl

namespace ddl::worker {

// Code packages and datasets of leased tasks, cached by digest under WORK_DIR/cache. A blob is
// fetched once from GET /v1/workers/blobs/<sha256> (by ranges, resumable, verified) into
// cache/blobs/<sha256>; a dataset (a tar.zst blob) is extracted once into
// cache/datasets/<sha256>/ and then read by every task that names it. Asking for a digest that is
// already on its way joins that one fetch. Callbacks run from the event loop, never from inside
// the call, and are dropped when their context object is gone.
class BlobCache : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const Result<QString> &path)>;

    BlobCache(ApiClient *client, const QString &cacheRoot, QObject *parent = nullptr);

    QString blobPath(const QString &sha256) const;
    QString datasetPath(const QString &sha256) const;

    // done(path of the verified blob file).
    void fetchBlob(const QString &sha256, QObject *context, Callback done);
    // done(path of the folder the dataset was extracted to).
    void fetchDataset(const QString &sha256, QObject *context, Callback done);

    // How often a download that could not reach the server (it may be restarting) is tried
    // again before the fetch fails, waiting 0.25 s, 0.5 s, ... up to 4 s between tries. The
    // default, 8, rides out about 20 s.
    void setTransientRetries(int retries) { m_transientRetries = retries; }

private:
    struct Waiter
    {
        QPointer<QObject> context;
        Callback done;
    };

    void downloadBlob(const QString &sha256, int attempt = 0);
    void extractDataset(const QString &sha256, const QString &blob);
    static void notify(QList<Waiter> waiters, const Result<QString> &result);

    ApiClient *m_client;
    QString m_root;
    QHash<QString, QList<Waiter>> m_blobWaiters;
    QHash<QString, QList<Waiter>> m_datasetWaiters;
    int m_transientRetries = 8;
};

// Extracts a tar or tar.zst into destination through the shared ArchiveExtractor (safe paths,
// size limits); destination must not exist yet. Safe to call from a worker thread.
Status extractArchive(const QString &archivePath, const QString &destination);

} // namespace ddl::worker
