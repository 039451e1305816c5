#include "checkpointsync.h"

#include "api/apiclient.h"
#include "api/datasetupload.h"
#include "cache/blobcache.h"
#include "workerlogging.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

// The regular files of folder, relative path first. Symbolic links are not followed: a link
// that points out of the folder never takes what it points at to the server.
template <typename Visit> void forEachFile(const QString &folder, Visit visit)
{
    QDirIterator it(
        folder, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        if (!info.isSymLink() && info.isFile())
            visit(info);
    }
}

struct CopyResult
{
    int files = 0;
    qint64 bytes = 0;
    QString error;
};

// Copies the checkpoint laid out in the cache (hard links to read-only blobs) into the task's
// folder as its own writable files: writing to them must never change the cache.
CopyResult copyCheckpoint(const QString &source, const QString &destination)
{
    CopyResult result;
    const QDir root(source);
    forEachFile(source, [&](const QFileInfo &info) {
        if (!result.error.isEmpty())
            return;
        const QString target = QDir(destination).filePath(root.relativeFilePath(info.filePath()));
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(info.filePath(), target) ||
            !QFile::setPermissions(target, QFile::ReadOwner | QFile::WriteOwner)) {
            result.error = u"cannot copy %1 to %2"_s.arg(info.filePath(), target);
            return;
        }
        ++result.files;
        result.bytes += info.size();
    });
    return result;
}

} // namespace

CheckpointSync::CheckpointSync(ApiClient *client,
                               const TaskLease &lease,
                               const QString &folder,
                               const QString &hashCachePath,
                               const QString &stagingFolder,
                               LogLine log,
                               QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_lease(lease)
    , m_folder(folder)
    , m_hashCachePath(hashCachePath)
    , m_staging(stagingFolder)
    , m_log(std::move(log))
    , m_recorded(lease.checkpointManifest) // a restored folder left as it was is not sent again
{
    connect(&m_interval, &QTimer::timeout, this, [this] {
        if (!m_busy)
            upload({});
    });
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        say(u"the checkpoint upload did not end in time; the last one saved stands"_s);
        abandonUpload();
        m_stopped = true;
        finishFinal();
    });
}

CheckpointSync::~CheckpointSync() = default;

void CheckpointSync::restore(BlobCache *cache, std::function<void(const Status &)> done)
{
    if (m_lease.checkpointManifest.isEmpty()) {
        QTimer::singleShot(0, this, [done] { done(Ok{}); });
        return;
    }
    m_log(u"fetching the checkpoint of attempt %1 (manifest %2)"_s.arg(m_lease.checkpointAttempt)
              .arg(m_lease.checkpointManifest));
    cache->fetchManifestDataset(
        m_lease.checkpointManifest, this, [this, done](const Result<QString> &laidOut) {
            if (!laidOut) {
                done(laidOut.error());
                return;
            }
            auto *watcher = new QFutureWatcher<CopyResult>(this);
            connect(watcher, &QFutureWatcher<CopyResult>::finished, this, [this, watcher, done] {
                watcher->deleteLater();
                const CopyResult copied = watcher->result();
                if (!copied.error.isEmpty()) {
                    done(Error::make(ErrorCode::IoError, copied.error));
                    return;
                }
                // What the task can tell from its folder, the log says too.
                m_log(u"DDL_CHECKPOINT_DIR holds the checkpoint of attempt %1: %2 file(s), %3 "
                      "bytes"_s.arg(m_lease.checkpointAttempt)
                          .arg(copied.files)
                          .arg(copied.bytes));
                done(Ok{});
            });
            watcher->setFuture(QtConcurrent::run(copyCheckpoint, *laidOut, m_folder));
        });
}

void CheckpointSync::startPeriodic(int intervalS)
{
    if (intervalS <= 0 || m_stopped)
        return;
    m_interval.start(intervalS * 1000);
}

void CheckpointSync::finalUpload(int timeoutMs, std::function<void()> done)
{
    m_interval.stop();
    m_finalDone = std::move(done);
    m_deadline.start(timeoutMs);
    if (m_busy)
        m_finalWaiting = true;
    else
        startFinal();
}

void CheckpointSync::startFinal()
{
    upload([this] { finishFinal(); });
}

void CheckpointSync::finishFinal()
{
    m_deadline.stop();
    if (std::function<void()> done = std::exchange(m_finalDone, nullptr))
        done();
}

void CheckpointSync::stop()
{
    m_stopped = true;
    m_interval.stop();
    abandonUpload();
}

void CheckpointSync::abortFinal()
{
    stop();
    m_finalWaiting = false;
    finishFinal();
}

void CheckpointSync::abandonUpload()
{
    if (!m_upload)
        return;
    m_upload->disconnect(this);
    m_upload->cancel();
    m_upload->deleteLater();
    m_upload = nullptr;
    m_busy = false;
}

void CheckpointSync::settle(const std::function<void()> &then)
{
    m_busy = false;
    if (std::exchange(m_finalWaiting, false))
        startFinal();
    else if (then)
        then();
}

void CheckpointSync::upload(std::function<void()> then)
{
    if (m_stopped || !m_client) {
        if (then)
            then();
        return;
    }
    m_busy = true;
    // The task keeps running and may change its folder at any moment: what is sent is a
    // snapshot of it in the worker's own staging folder, never the task's folder itself.
    auto *watcher = new QFutureWatcher<CheckpointSnapshot>(this);
    connect(watcher, &QFutureWatcher<CheckpointSnapshot>::finished, this, [this, watcher, then] {
        watcher->deleteLater();
        handleSnapshot(watcher->result(), then);
    });
    watcher->setFuture(QtConcurrent::run(
        snapshotCheckpoint, m_folder, m_staging, m_lease.checkpointMaxBytes));
}

void CheckpointSync::handleSnapshot(const CheckpointSnapshot &snapshot, std::function<void()> then)
{
    if (m_stopped) {
        m_busy = false;
        return;
    }
    for (const QString &line : snapshot.leftOut)
        say(u"checkpoint: "_s + line);
    if (!snapshot.error.isEmpty()) {
        // A partial checkpoint would pass for a whole one in the next attempt.
        say(u"checkpoint not uploaded: "_s + snapshot.error);
        qCWarning(lcWorkerRunner).noquote()
            << u"task %1: checkpoint not uploaded: %2"_s.arg(m_lease.taskId).arg(snapshot.error);
        settle(then);
        return;
    }
    if (snapshot.files == 0) {
        settle(then);
        return;
    }
    if (snapshot.overLimit) {
        say(u"checkpoint not uploaded: DDL_CHECKPOINT_DIR holds %1 bytes in %2 file(s), more "
            "than the %3 bytes the server keeps of one (its checkpoint_max_bytes); keep less "
            "there"_s.arg(snapshot.bytes)
                .arg(snapshot.files)
                .arg(m_lease.checkpointMaxBytes));
        settle(then);
        return;
    }
    m_upload = new DatasetUpload(m_client, m_staging, this);
    m_upload->setHashCachePath(m_hashCachePath);
    connect(m_upload, &DatasetUpload::finished, this, [this, then] { handleUploaded(then); });
    m_upload->start();
}

void CheckpointSync::handleUploaded(std::function<void()> then)
{
    DatasetUpload *upload = std::exchange(m_upload, nullptr);
    upload->deleteLater();
    if (!upload->result()) {
        // A file the task rewrote while it was sent fails its digest: the next upload takes it.
        say(u"checkpoint not uploaded: %1"_s.arg(upload->result().error().message));
        settle(then);
        return;
    }
    for (const QString &warning : upload->manifest().warnings())
        say(u"checkpoint: "_s + warning);
    const QString manifest = *upload->result();
    if (manifest == m_recorded) {
        settle(then); // nothing changed since the last one
        return;
    }
    record(manifest,
           upload->manifest().totalSize(),
           int(upload->manifest().files().size()),
           upload->bytesToSend(),
           then);
}

void CheckpointSync::record(
    const QString &manifest, qint64 bytes, int files, qint64 sent, std::function<void()> then)
{
    ApiRequest *request =
        m_client->postJson(u"/v1/workers/tasks/%1/checkpoint"_s.arg(m_lease.taskId),
                           QJsonObject{{u"manifest_sha256"_s, manifest}});
    connect(request, &ApiRequest::finished, this, [=, this] {
        request->deleteLater();
        if (m_stopped) {
            m_busy = false;
            return;
        }
        if (request->result()) {
            m_recorded = manifest;
            say(u"checkpoint saved: %1 file(s), %2 bytes (%3 bytes sent)"_s.arg(files)
                    .arg(bytes)
                    .arg(sent));
        } else {
            say(u"checkpoint not recorded: %1"_s.arg(request->result().error().message));
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: the server did not record its checkpoint (%2)"_s.arg(m_lease.taskId)
                       .arg(request->result().error().message);
        }
        settle(then);
    });
}

void CheckpointSync::say(const QString &line)
{
    if (line == m_lastSaid)
        return;
    m_lastSaid = line;
    m_log(line);
}

} // namespace ddl::worker
