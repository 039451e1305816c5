#include "datasetmaterializer.h"

#include "cache/blobcache.h"
#include "cache/datasetlayout.h"
#include "config/bytesize.h"
#include "core/sha256.h"
#include "workerlogging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QSet>
#include <QTimer>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace ddl::worker {

DatasetMaterializer::DatasetMaterializer(BlobCache *cache, QObject *parent)
    : QObject(parent)
    , m_cache(cache)
{
}

QString DatasetMaterializer::folderPath(const QString &manifestSha256) const
{
    return m_cache->root() + u"/datasets/m-"_s + manifestSha256;
}

QString DatasetMaterializer::pinOwner(const QString &manifestSha256)
{
    return u"layout:"_s + manifestSha256;
}

void DatasetMaterializer::fetch(const QString &manifestSha256, QObject *context, Callback done)
{
    if (!isSha256Hex(manifestSha256)) {
        QTimer::singleShot(0, context, [done, manifestSha256] {
            done(Error::make(ErrorCode::BadRequest,
                             u"'%1' is not a SHA-256 digest of a manifest"_s.arg(manifestSha256)));
        });
        return;
    }
    const QString folder = folderPath(manifestSha256);
    if (QFileInfo(folder).isDir()) {
        reuse(folder, context, std::move(done));
        return;
    }
    if (const std::shared_ptr<Build> running = m_builds.value(manifestSha256)) {
        running->waiters.append({context, std::move(done)});
        return;
    }
    auto build = std::make_shared<Build>();
    build->manifestSha256 = manifestSha256;
    build->waiters.append({context, std::move(done)});
    m_builds.insert(manifestSha256, build);
    m_cache->pin(pinOwner(manifestSha256), {manifestSha256});
    m_cache->fetchBlob(manifestSha256, this, [this, build](const Result<QString> &blob) {
        if (!blob) {
            finish(build,
                   blob.error().withMessage(u"cannot fetch the manifest %1: %2"_s.arg(
                       build->manifestSha256, blob.error().message)));
            return;
        }
        readManifest(build, *blob);
    });
}

void DatasetMaterializer::reuse(const QString &folder, QObject *context, Callback done)
{
    qCDebug(lcWorkerCache) << "dataset" << folder << "found laid out in the cache";
    // Marking each file marks its blob (the same inode), so the janitor sees them in use.
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher,
            &QFutureWatcher<void>::finished,
            this,
            [watcher, folder, guard = QPointer<QObject>(context), done] {
                watcher->deleteLater();
                if (guard)
                    done(folder);
            });
    watcher->setFuture(QtConcurrent::run(markTreeUsed, folder));
}

void DatasetMaterializer::readManifest(const std::shared_ptr<Build> &build, const QString &blob)
{
    const QString blobDir = QFileInfo(m_cache->blobPath(build->manifestSha256)).path();
    auto makePlan = [blob, blobDir]() -> Result<Plan> {
        QFile file(blob);
        if (!file.open(QIODevice::ReadOnly))
            return Error::make(ErrorCode::IoError,
                               u"cannot read %1: %2"_s.arg(blob, file.errorString()));
        if (file.size() > DatasetManifest::MaxJsonBytes) {
            return Error::make(
                ErrorCode::BadManifest,
                u"the manifest is %1, more than a manifest may be (%2)"_s.arg(
                    formatByteSize(file.size()), formatByteSize(DatasetManifest::MaxJsonBytes)));
        }
        Result<DatasetManifest> manifest = DatasetManifest::parse(file.readAll());
        if (!manifest)
            return manifest.error();
        Plan plan{*manifest, {}, 0};
        QSet<QString> seen;
        for (const ManifestFile &entry : manifest->files()) {
            if (seen.contains(entry.sha256) || QFileInfo::exists(blobDir + u'/' + entry.sha256))
                continue;
            seen.insert(entry.sha256);
            plan.missing.append(entry.sha256);
            plan.missingBytes += entry.size;
        }
        return plan;
    };
    auto *watcher = new QFutureWatcher<Result<Plan>>(this);
    connect(watcher, &QFutureWatcher<Result<Plan>>::finished, this, [this, watcher, build] {
        watcher->deleteLater();
        const Result<Plan> plan = watcher->result();
        if (!plan) {
            finish(build,
                   plan.error().withMessage(u"cannot read the manifest %1: %2"_s.arg(
                       build->manifestSha256, plan.error().message)));
            return;
        }
        build->manifest = plan->manifest;
        build->missing = plan->missing;
        QStringList files;
        files.reserve(build->manifest.files().size());
        for (const ManifestFile &entry : build->manifest.files())
            files.append(entry.sha256);
        // Pinned before the janitor makes room, so that it keeps what is already here.
        m_cache->pin(pinOwner(build->manifestSha256), files);
        m_cache->trim(plan->missingBytes);
        qCInfo(lcWorkerCache).noquote()
            << u"dataset %1: %2 file(s), %3; fetching %4 blob(s), %5"_s.arg(
                   build->manifestSha256,
                   QString::number(build->manifest.files().size()),
                   formatByteSize(build->manifest.totalSize()),
                   QString::number(build->missing.size()),
                   formatByteSize(plan->missingBytes));
        downloadMore(build);
    });
    watcher->setFuture(QtConcurrent::run(makePlan));
}

void DatasetMaterializer::downloadMore(const std::shared_ptr<Build> &build)
{
    while (!build->failed && build->downloading < ConcurrentDownloads &&
           build->nextMissing < build->missing.size()) {
        const QString sha = build->missing.at(build->nextMissing++);
        ++build->downloading;
        m_cache->fetchBlob(sha, this, [this, build, sha](const Result<QString> &blob) {
            --build->downloading;
            if (build->failed)
                return;
            if (!blob) {
                build->failed = true;
                finish(
                    build,
                    blob.error().withMessage(u"cannot fetch file blob %1 of dataset %2: %3"_s.arg(
                        sha, build->manifestSha256, blob.error().message)));
                return;
            }
            downloadMore(build);
        });
    }
    if (!build->failed && build->downloading == 0 && build->nextMissing == build->missing.size())
        layOut(build);
}

void DatasetMaterializer::layOut(const std::shared_ptr<Build> &build)
{
    const QString folder = folderPath(build->manifestSha256);
    const QString blobDir = QFileInfo(m_cache->blobPath(build->manifestSha256)).path();
    auto *watcher = new QFutureWatcher<Result<LayoutStats>>(this);
    connect(watcher,
            &QFutureWatcher<Result<LayoutStats>>::finished,
            this,
            [this, watcher, build, folder] {
                watcher->deleteLater();
                const Result<LayoutStats> stats = watcher->result();
                if (!stats) {
                    finish(build,
                           stats.error().withMessage(u"cannot lay out dataset %1: %2"_s.arg(
                               build->manifestSha256, stats.error().message)));
                    return;
                }
                qCInfo(lcWorkerCache).noquote()
                    << u"dataset %1 laid out in %2: %3 file(s) linked, %4 copied"_s.arg(
                           build->manifestSha256,
                           folder,
                           QString::number(stats->links),
                           QString::number(stats->copies));
                finish(build, folder);
            });
    watcher->setFuture(QtConcurrent::run(layOutDataset, build->manifest, blobDir, folder));
}

void DatasetMaterializer::finish(const std::shared_ptr<Build> &build, const Result<QString> &result)
{
    if (!result)
        qCWarning(lcWorkerCache).noquote() << result.error().message;
    m_builds.remove(build->manifestSha256);
    m_cache->unpin(pinOwner(build->manifestSha256));
    const QList<Waiter> waiters = std::exchange(build->waiters, {});
    for (const Waiter &waiter : waiters) {
        if (waiter.context)
            waiter.done(result);
    }
}

} // namespace ddl::worker
