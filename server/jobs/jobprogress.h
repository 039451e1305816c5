#pragma once

#include "core/result.h"

#include <QSqlDatabase>
#include <optional>

namespace ddl::server {

// How a task ended, as its worker (or the server, for a lost worker) tells it.
struct TaskOutcome
{
    QString state; // SUCCEEDED, FAILED or STOPPED
    std::optional<int> exitCode;
    QString message;
};

// Moves jobs forward as their tasks start and end, with OpenPAI's semantics: minFailedTaskCount
// failed tasks of a role (default 1; null never) fail the attempt, which is retried while
// retryCount allows (each retry an attempt with new tasks); the job succeeds when
// minSucceededTaskCount tasks of a role succeeded, killAllOnCompletedTaskNumber tasks did, or all
// tasks ended without failing it.
class Scheduler;

class JobProgress
{
public:
    JobProgress(const QSqlDatabase &db, Scheduler &scheduler);

    Status taskStarted(qint64 taskId);
    Status taskEnded(qint64 taskId, const TaskOutcome &outcome);

private:
    // Decides the job's fate after a task ended; true when it starts a new attempt.
    Result<bool> evaluateJob(qint64 jobId);
    Status endAttempt(qint64 jobId, int attempt);

    QSqlDatabase m_db;
    Scheduler &m_scheduler;
};

} // namespace ddl::server
