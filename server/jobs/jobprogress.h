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
// tasks ended without failing it.
class Scheduler;

class JobProgress
{
public:
    JobProgress(const QSqlDatabase &db, Scheduler &scheduler);

    Status taskStarted(qint64 taskId);
    Status taskEnded(qint64 taskId, const TaskEnd &end);

private:
    // Decides the job's fate after a task ended; true when it starts a new attempt.
    Result<bool> evaluateJob(qint64 jobId);

    QSqlDatabase m_db;
    JobStore m_store;
    Scheduler &m_scheduler;
};

} // namespace ddl::server
