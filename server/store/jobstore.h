#pragma once

#include "core/result.h"
#include "wire/jobstate.h"

#include <QJsonObject>
#include <QSqlDatabase>

#include <optional>

namespace ddl::server {

// A row of the jobs table, read by column name.
struct JobRow
{
    qint64 id = 0;
    qint64 userId = 0;
    QString uuid;
    QString name;
    JobState state = JobState::Waiting;
    QJsonObject spec;
    int attempt = 1;
    int retryCount = 0;
    int preemptions = 0; // attempts its workers' owners preempted
    QString reason;

    // Attempts that failed (a preempted one did not): the retries spent are failures - 1.
    int failedAttempts() const { return attempt - preemptions; }
};

// A row of the tasks table, read by column name.
struct TaskRow
{
    qint64 id = 0;
    qint64 jobId = 0;
    int attempt = 1;
    QString role;
    int roleIndex = 0;
    JobState state = JobState::Waiting;
    std::optional<int> exitCode;
    QString message;
    bool cancelRequested = false;
    qint64 workerId = 0;  // 0: not placed
    qint64 startedAt = 0; // when its worker said it runs; 0: never
};

// A job as submitted: stored WAITING at attempt 1, with one WAITING task per task of each role.
struct NewJob
{
    qint64 userId = 0;
    QString uuid;
    QString name;
    QString kind;
    QJsonObject spec;
    QString packageSha256; // empty: none (an OpenPAI job may have no code)
    QString commit;
    QString datasetSha256;   // empty: none
    QString datasetManifest; // empty: none
    int retryCount = 0;
    int priority = 0;
    QString reason;
    QList<std::pair<QString, int>> roles; // name, taskNumber; in spec order
    QString imageManifest;                // a ddl:// image's OCI layout manifest; empty: none
};

// Where the scheduler placed a task.
struct TaskPlacement
{
    qint64 taskId = 0;
    qint64 workerId = 0;
    int port = 0;
    QList<int> gpuIndices;
};

// A task's GPUs as tasks.gpu_indices stores them ("0,2"; "" for none), and back.
QString gpuIndicesText(const QList<int> &indices);
QList<int> parseGpuIndices(const QString &text);

// How a task ended, as its worker (or the server, for a lost worker) tells it.
struct TaskEnd
{
    JobState state = JobState::Failed; // SUCCEEDED, FAILED or STOPPED
    std::optional<int> exitCode;
    QString message;
    // The server ended it for its worker (lost, restarted): a failure for the worker's trust.
    // A FAILED task that never started (the worker could not fetch, prepare or start it) counts
    // so too; one whose process ran and failed is the job's (docs/trust.md).
    bool workerFault = false;
};

// The state changes of jobs and tasks, in one place: each is checked against the state the row
// is in, and a change the states do not allow (a job that ended starting again, a task ending
// twice) is refused with a conflict that names both states. Callers hold the transaction.
class JobStore
{
public:
    explicit JobStore(const QSqlDatabase &db);

    // WAITING -> RUNNING -> SUCCEEDED | FAILED | STOPPED; WAITING may also end at once (cancel,
    // a task that failed before it reported its start). Back to WAITING only by retryJob().
    // Nothing leaves a final state.
    static bool jobMayMove(JobState from, JobState to);
    // WAITING -> RUNNING (placed) -> SUCCEEDED | FAILED | STOPPED; WAITING -> STOPPED.
    static bool taskMayMove(JobState from, JobState to);

    Result<JobRow> job(qint64 jobId) const;
    Result<TaskRow> task(qint64 taskId) const;
    // The tasks of one attempt of a job, in task order.
    Result<QList<TaskRow>> tasksOf(qint64 jobId, int attempt) const;

    // Stores a submitted job and its tasks; returns the job's id.
    Result<qint64> addJob(const NewJob &job);
    // A waiting task placed on a worker: RUNNING there, for the worker to collect. false: the
    // task no longer waits (its job was cancelled meanwhile), and nothing changed.
    Result<bool> placeTask(const TaskPlacement &placement);
    // Why a waiting job waits; a job that is no longer waiting keeps its reason.
    Status setWaitingReason(qint64 jobId, const QString &reason);
    // The worker collected the task's lease.
    Status markDelivered(qint64 taskId);

    // Moves the job to `to` with this reason; RUNNING sets started_at once, a final state
    // finished_at.
    Status moveJob(qint64 jobId, JobState to, const QString &reason);
    // A failed attempt with retries left: the job waits again, for attempt + 1, with a new
    // WAITING task for each task of the failed attempt.
    Status retryJob(qint64 jobId, const QString &reason);
    // A preempted attempt (its worker's owner took the machine back): the job waits again, for
    // attempt + 1, like retryJob() but spending no retry.
    Status requeueJob(qint64 jobId, const QString &reason);
    // A line of the job's events (job_events), by its task.
    Status addEvent(qint64 jobId, qint64 taskId, const QString &message);
    // Ends a running task. false: it had ended already (a resend).
    Result<bool> endTask(qint64 taskId, const TaskEnd &end);
    // The task's process started on its worker: its start time, kept once.
    Status taskStarted(qint64 taskId);
    // Stops an attempt's (or every attempt's, when attempt is 0) waiting tasks now and asks its
    // running ones to stop at their worker's next heartbeat.
    Status stopTasks(qint64 jobId, int attempt = 0);

private:
    Status beginAttempt(const JobRow &current, const QString &reason, bool preempted);

    QSqlDatabase m_db;
};

} // namespace ddl::server
