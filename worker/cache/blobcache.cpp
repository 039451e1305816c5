#include "blobcache.h"

#include "api/rangedownload.h"
#include "cache/datasetlayout.h"
#include "cache/datasetmaterializer.h"
#include "core/sha256.h"
#include "packaging/archiveextractor.h"
#include "workerlogging.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QTimer>
#include <QUuid>
#include <QtConcurrent>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::worker {

BlobCache::BlobCache(ApiClient *client, const QString &cacheRoot, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_root(cacheRoot)
    , m_janitor(cacheRoot)
{
    QDir().mkpath(m_root + u"/blobs"_s);
    QDir().mkpath(m_root + u"/datasets"_s);
    // No other worker shares this folder: what is half-made now was left by a crash.
    CacheJanitor::removePartials(m_root);
    m_materializer = new DatasetMaterializer(this, this);
}

BlobCache::~BlobCache() = default;

QString BlobCache::blobPath(const QString &sha256) const
{
    return m_root + u"/blobs/"_s + sha256;
}

QString BlobCache::datasetPath(const QString &sha256) const
{
    return m_root + u"/datasets/"_s + sha256;
}

QString BlobCache::manifestDatasetPath(const QString &manifestSha256) const
{
    return m_materializer->folderPath(manifestSha256);
}

void BlobCache::pin(const QString &owner, const QStringList &sha256s)
{
    QSet<QString> &pinned = m_pins[owner];
    for (const QString &sha : sha256s) {
        if (!sha.isEmpty())
            pinned.insert(sha);
    }
}

void BlobCache::unpin(const QString &owner)
{
    m_pins.remove(owner);
}

bool BlobCache::isPinned(const QString &sha256) const
{
    return std::any_of(m_pins.cbegin(), m_pins.cend(), [&sha256](const QSet<QString> &pinned) {
        return pinned.contains(sha256);
    });
}

QList<CacheJanitor::Eviction> BlobCache::trim(qint64 reserveBytes)
{
    return m_janitor.trim(reserveBytes, [this](const QString &sha) { return isPinned(sha); });
}

void BlobCache::fetchManifestDataset(const QString &manifestSha256, QObject *context, Callback done)
{
    m_materializer->fetch(manifestSha256, context, std::move(done));
}

void BlobCache::notify(QList<Waiter> waiters, const Result<QString> &result)
{
    for (const Waiter &waiter : waiters) {
        if (waiter.context)
            waiter.done(result);
    }
}

void BlobCache::fetchBlob(const QString &sha256, QObject *context, Callback done)
{
    if (!isSha256Hex(sha256)) {
        QTimer::singleShot(0, context, [done, sha256] {
            done(Error::make(ErrorCode::BadRequest, u"'%1' is not a SHA-256 digest"_s.arg(sha256)));
        });
        return;
    }
    // A blob in the cache was verified before it was renamed into place.
    const QString path = blobPath(sha256);
    if (QFileInfo(path).isFile()) {
        qCDebug(lcWorkerCache) << "blob" << sha256 << "found in the cache";
        markUsed(path);
        QTimer::singleShot(0, context, [done, path] { done(path); });
        return;
    }
    QList<Waiter> &waiters = m_blobWaiters[sha256];
    waiters.append({context, std::move(done)});
    if (waiters.size() == 1)
        downloadBlob(sha256);
}

void BlobCache::downloadBlob(const QString &sha256, int attempt)
{
    qCInfo(lcWorkerCache) << "fetching blob" << sha256 << "from the server";
    auto *download = new RangeDownload(
        m_client, u"/v1/workers/blobs/"_s + sha256, {}, blobPath(sha256), sha256, this);
    connect(download, &RangeDownload::finished, this, [this, download, sha256, attempt] {
        download->deleteLater();
        const Result<QString> result = download->result();
        // A server that restarts is gone for a moment: failing the task for that would spend one
        // of the job's retries (or fail a job that has none) on nothing the task did.
        if (!result && isTransient(result.error()) && attempt < m_transientRetries) {
            const int delayMs = std::min(250 << attempt, 4000);
            qCWarning(lcWorkerCache).noquote()
                << u"cannot fetch blob %1 (%2); trying again in %3 ms"_s.arg(
                       sha256, result.error().message, QString::number(delayMs));
            QTimer::singleShot(
                delayMs, this, [this, sha256, attempt] { downloadBlob(sha256, attempt + 1); });
            return;
        }
        if (result) {
            // Read-only, as dataset folders hard-link to it: no task can change it in place.
            if (const Status readOnly = makeReadOnly(*result); !readOnly)
                qCWarning(lcWorkerCache).noquote() << readOnly.error().message;
            qCInfo(lcWorkerCache) << "blob" << sha256 << "cached";
        } else {
            qCWarning(lcWorkerCache).noquote()
                << u"cannot fetch blob %1: %2"_s.arg(sha256, result.error().message);
        }
        notify(m_blobWaiters.take(sha256), result);
    });
    download->start();
}

void BlobCache::fetchDataset(const QString &sha256, QObject *context, Callback done)
{
    const QString path = datasetPath(sha256);
    if (QFileInfo(path).isDir()) {
        qCDebug(lcWorkerCache) << "dataset" << sha256 << "found extracted in the cache";
        markUsed(path);
        QTimer::singleShot(0, context, [done, path] { done(path); });
        return;
    }
    QList<Waiter> &waiters = m_datasetWaiters[sha256];
    waiters.append({context, std::move(done)});
    if (waiters.size() > 1)
        return;
    fetchBlob(sha256, this, [this, sha256](const Result<QString> &blob) {
        if (!blob) {
            notify(m_datasetWaiters.take(sha256), blob.error());
            return;
        }
        extractDataset(sha256, *blob);
    });
}

void BlobCache::extractDataset(const QString &sha256, const QString &blob)
{
    qCInfo(lcWorkerCache) << "extracting dataset" << sha256;
    const QString destination = datasetPath(sha256);
    // Extract beside the final folder and rename it into place, so that a folder under its
    // digest is always complete, even after a crash half-way.
    const QString partial =
        m_root + u"/datasets/.partial-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    auto *watcher = new QFutureWatcher<Status>(this);
    connect(watcher, &QFutureWatcher<Status>::finished, this, [=, this] {
        watcher->deleteLater();
        Status status = watcher->result();
        if (status && !QDir().rename(partial, destination)) {
            QDir(partial).removeRecursively();
            if (!QFileInfo(destination).isDir()) {
                status =
                    Error::make(ErrorCode::IoError,
                                u"cannot move the extracted dataset into %1"_s.arg(destination));
            }
        }
        if (status) {
            qCInfo(lcWorkerCache) << "dataset" << sha256 << "extracted to" << destination;
            // The extracted folder is what is reused; the archive would only double the disk.
            QFile::remove(blob);
            notify(m_datasetWaiters.take(sha256), destination);
        } else {
            qCWarning(lcWorkerCache).noquote()
                << u"cannot extract dataset %1: %2"_s.arg(sha256, status.error().message);
            notify(m_datasetWaiters.take(sha256),
                   status.error().withMessage(
                       u"cannot extract dataset %1: %2"_s.arg(sha256, status.error().message)));
        }
    });
    watcher->setFuture(QtConcurrent::run(extractArchive, blob, partial));
}

Status extractArchive(const QString &archivePath, const QString &destination)
{
    const ArchiveExtractor extractor;
    const Result<ExtractionInfo> info = extractor.extract(archivePath, destination);
    if (!info)
        return info.error();
    return Ok{};
}

} // namespace ddl::worker
