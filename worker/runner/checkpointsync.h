#pragma once

#include "core/result.h"
#include "runner/checkpointsnapshot.h"
#include "wire/tasklease.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>

namespace ddl {
class ApiClient;
class DatasetUpload;
} // namespace ddl

namespace ddl::worker {

class BlobCache;

// A task's DDL_CHECKPOINT_DIR (docs/checkpoints.md). Before the task starts, the latest
// checkpoint of its earlier attempts (the lease's manifest) is laid out there through the blob
// cache. While it runs, and once more after it was preempted or failed, the folder goes to the
// server (first hard-linked into stagingFolder, a folder of the worker's own that the task
// cannot see or change: see snapshotCheckpoint()) as a dataset manifest (DatasetUpload: only
// files the server lacks travel, each upload resumable), then POST /v1/workers/tasks/{id}/checkpoint records it; the server records it only
// once every file is stored. A folder over the lease's size limit is not sent, and the task's
// log says why. Lines for the task's log go to log().
class CheckpointSync : public QObject
{
    Q_OBJECT
public:
    using LogLine = std::function<void(const QString &line)>;

    CheckpointSync(ApiClient *client,
                   const TaskLease &lease,
                   const QString &folder,
                   const QString &hashCachePath,
                   const QString &stagingFolder,
                   LogLine log,
                   QObject *parent = nullptr);
    ~CheckpointSync() override;

    // Lays the lease's checkpoint out into the (empty) folder; done(Ok) at once when it has none.
    void restore(BlobCache *cache, std::function<void(const Status &)> done);
    // Uploads every intervalS seconds while the task runs; 0: never.
    void startPeriodic(int intervalS);
    // The task's process has ended: one last upload (after the one in flight, if any), then
    // done(), at the latest after timeoutMs.
    void finalUpload(int timeoutMs, std::function<void()> done);
    // No more uploads; one in flight is abandoned.
    void stop();
    // stop(), and the final upload's done() now (the job's user cancelled it).
    void abortFinal();

private:
    void upload(std::function<void()> then);
    void startFinal();
    void finishFinal();
    // The upload in flight ended (or was skipped): the final one may start, else then().
    void settle(const std::function<void()> &then);
    void abandonUpload();
    void handleSnapshot(const CheckpointSnapshot &snapshot, std::function<void()> then);
    void handleUploaded(std::function<void()> then);
    void record(
        const QString &manifest, qint64 bytes, int files, qint64 sent, std::function<void()> then);
    // A line for the task's log, unless it is the one said last (a failing periodic upload
    // says so once, not every interval).
    void say(const QString &line);

    QPointer<ApiClient> m_client;
    TaskLease m_lease;
    QString m_folder;
    QString m_hashCachePath;
    QString m_staging;
    LogLine m_log;
    QTimer m_interval;
    QTimer m_deadline;
    bool m_busy = false;
    bool m_stopped = false;
    bool m_finalWaiting = false; // the final upload starts when the one in flight ends
    std::function<void()> m_finalDone;
    DatasetUpload *m_upload = nullptr;
    QString m_recorded; // the manifest the server has as this task's latest
    QString m_lastSaid;
};

} // namespace ddl::worker
