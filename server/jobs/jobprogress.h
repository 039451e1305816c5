#pragma once

#include "core/result.h"
#include "store/jobstore.h"

#include <QSqlDatabase>
#include <optional>

namespace ddl::server {

// Moves jobs forward as their tasks start and end, with OpenPAI's semantics: minFailedTaskCount
// failed tasks of a role (default 1; null never) fail the attempt, which is retried while
// retryCount allows (each retry an attempt with new tasks); the job succeeds when
// minSucceededTaskCount tasks of a role succeeded, killAllOnCompletedTaskNumber tasks did, or all
// tasks ended without failing it. A preempted attempt is no failure (docs/owners.md).
class Scheduler;

class JobProgress
{
public:
    JobProgress(const QSqlDatabase &db, Scheduler &scheduler);

    Status taskStarted(qint64 taskId);
    Status taskEnded(qint64 taskId, const TaskEnd &end);
    // The task's worker ended it because its owner took the machine back (why: the worker's
    // words). Not a failure: the job's attempt stops and the job waits for a worker again, as a
    // new attempt that spends no retry, with why as its reason and among its events.
    Status taskPreempted(qint64 taskId, const QString &why);

private:
    // Decides the job's fate after a task ended; true when it starts a new attempt.
    Result<bool> evaluateJob(qint64 jobId);

    QSqlDatabase m_db;
    JobStore m_store;
    Scheduler &m_scheduler;
};

} // namespace ddl::server
