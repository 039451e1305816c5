#pragma once

#include "cache/cachejanitor.h"
#include "core/result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <functional>

namespace ddl {
class ApiClient;
} // namespace ddl

namespace ddl::worker {

class DatasetMaterializer;

// Code packages and datasets of leased tasks, cached by digest under WORK_DIR/cache. A blob is
// fetched once from GET /v1/workers/blobs/<sha256> (by ranges, resumable, verified) into
// cache/blobs/<sha256>; a dataset (a tar.zst blob) is extracted once into
// cache/datasets/<sha256>/ and then read by every task that names it. Asking for a digest that is
// already on its way joins that one fetch. A dataset given as a manifest is laid out once as
// hard links to its file blobs in cache/datasets/m-<manifest sha256>/ (DatasetMaterializer).
// Cached blobs are read-only; each use sets the modification time of the blob or folder, and
// the CacheJanitor keeps the cache under its size limit by that, never taking what a running
// task has pinned. Callbacks run from the event loop, never from inside the call, and are
// dropped when their context object is gone.
class BlobCache : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const Result<QString> &path)>;

    // Removes the half-made dataset folders a killed worker left in cacheRoot.
    BlobCache(ApiClient *client, const QString &cacheRoot, QObject *parent = nullptr);
    ~BlobCache() override;

    QString root() const { return m_root; }
    QString blobPath(const QString &sha256) const;
    QString datasetPath(const QString &sha256) const;
    QString manifestDatasetPath(const QString &manifestSha256) const;

    // done(path of the verified blob file).
    void fetchBlob(const QString &sha256, QObject *context, Callback done);
    // done(path of the folder the dataset was extracted to).
    void fetchDataset(const QString &sha256, QObject *context, Callback done);

    // How often a download that could not reach the server (it may be restarting) is tried
    // again before the fetch fails, waiting 0.25 s, 0.5 s, ... up to 4 s between tries. The
    // default, 8, rides out about 20 s.
    void setTransientRetries(int retries) { m_transientRetries = retries; }

    // done(path of the folder laid out from the manifest blob manifestSha256).
    void fetchManifestDataset(const QString &manifestSha256, QObject *context, Callback done);

    // What a running task uses and the janitor must keep: blobs, extracted datasets (by their
    // blob's digest) and manifest datasets (by the manifest's digest), under an owner's name.
    void pin(const QString &owner, const QStringList &sha256s);
    void unpin(const QString &owner);
    bool isPinned(const QString &sha256) const;

    // 0: no limit (the default).
    void setSizeLimit(qint64 bytes) { m_janitor.setLimit(bytes); }
    qint64 sizeLimit() const { return m_janitor.limit(); }
    qint64 usage() { return m_janitor.usage(); }
    // Evicts until reserveBytes more fit under the limit (CacheJanitor::trim).
    QList<CacheJanitor::Eviction> trim(qint64 reserveBytes = 0);

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
    QHash<QString, QSet<QString>> m_pins; // by owner
    CacheJanitor m_janitor;
    DatasetMaterializer *m_materializer = nullptr;
};

// Extracts a tar or tar.zst into destination through the shared ArchiveExtractor (safe paths,
// size limits); destination must not exist yet. Safe to call from a worker thread.
Status extractArchive(const QString &archivePath, const QString &destination);

} // namespace ddl::worker
