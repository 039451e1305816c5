#pragma once

#include "core/result.h"
#include "jobs/jobprogress.h"
#include "workerref.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSqlDatabase>

#include <optional>

namespace ddl::server {

class Scheduler;
class UploadService;

// The server's side of its workers: enrollment tokens, enrollment, heartbeats, the tasks a
// worker holds (its lease), and workers that stopped answering.
class WorkerService
{
public:
    WorkerService(const QSqlDatabase &db, UploadService &uploads, JobProgress &progress,
                  Scheduler &scheduler);

    // For `ddl-server token create [--owner EMAIL]`: a new enrollment token, shown once. The
    // workers it enrolls are ownerId's (they read their contribution ledger), or nobody's.
    Result<QString> createEnrollToken(std::optional<qint64> ownerId = std::nullopt);
    Result<QJsonObject> enroll(const QJsonObject &request, const QString &peerAddress);
    Result<WorkerRef> authenticate(const QString &workerToken);
    // Records the heartbeat; answers the tasks the worker must stop.
    Result<QJsonObject> heartbeat(const WorkerRef &worker, const QJsonObject &request);

    // The task, if it is leased to this worker and still running; else conflict (stale lease).
    Status checkLease(const WorkerRef &worker, qint64 taskId);
    Status reportState(const WorkerRef &worker, qint64 taskId, const QJsonObject &request);
    Status recordArtifacts(const WorkerRef &worker, qint64 taskId, const QJsonObject &request);
    // {"message"}: a step of the task's preparation for the job's events (one line, at most
    // MaxEventChars; at most MaxEventsPerTask per task, so a worker cannot flood the store).
    Status recordEvent(const WorkerRef &worker, qint64 taskId, const QJsonObject &request);
    static constexpr int MaxEventChars = 500;
    static constexpr int MaxEventsPerTask = 20;
    // Whether a blob is code, data or a checkpoint of a task leased to this worker.
    bool mayRead(const WorkerRef &worker, const QString &sha256);

    // GET /v1/workers for users: every enrolled worker with its capacity, state and how many
    // tasks it runs now. Never its address or token.
    Result<QJsonObject> list();

    // Marks workers silent for longer than timeoutMs as lost and fails their tasks.
    void markLostWorkers(qint64 timeoutMs);

private:
    // The worker preempted a task for its owner: place nothing there before its next heartbeat
    // says so too (else the job would come straight back to it).
    Status markOwnerBusy(qint64 workerId);
    QSqlDatabase m_db;
    UploadService &m_uploads;
    JobProgress &m_progress;
    Scheduler &m_scheduler;
};

} // namespace ddl::server
