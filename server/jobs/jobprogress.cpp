#include "jobprogress.h"

#include "scheduler/scheduler.h"
#include "store/sql.h"
#include "workers/ledgerstore.h"
#include "wire/jobstate.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcJobs, "ddl.server.jobs")

namespace ddl::server {

JobProgress::JobProgress(const QSqlDatabase &db, Scheduler &scheduler)
    : m_db(db)
    , m_store(db)
    , m_scheduler(scheduler)
{}

Status JobProgress::taskStarted(qint64 taskId)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    if (Status started = m_store.taskStarted(taskId); !started)
        return started;
    const Result<TaskRow> task = m_store.task(taskId);
    if (!task)
        return task.error();
    const Result<JobRow> job = m_store.job(task->jobId);
    if (!job)
        return job.error();
    if (job->state == JobState::Waiting) {
        if (Status running = m_store.moveJob(job->id, JobState::Running, {}); !running)
            return running;
    }
    return transaction.commit();
}

Status JobProgress::taskEnded(qint64 taskId, const TaskEnd &end)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    const Result<bool> ended = m_store.endTask(taskId, end);
    if (!ended)
        return ended.error();
    if (!*ended)
        return transaction.commit(); // already ended: a resend
    if (Status counted = LedgerStore(m_db).recordTaskEnd(taskId, false); !counted)
        return counted;
    const Result<TaskRow> task = m_store.task(taskId);
    if (!task)
        return task.error();
    const qint64 jobId = task->jobId;
    Result<bool> retried = evaluateJob(jobId);
    if (!retried)
        return retried.error();
    if (Status committed = transaction.commit(); !committed)
        return committed;
    // The task's resources are free again, and a new attempt waits for its placement.
    m_scheduler.taskEnded(taskId);
    if (*retried)
        m_scheduler.enqueue(jobId);
    return Ok{};
}

Status JobProgress::taskPreempted(qint64 taskId, const QString &why)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    const Result<bool> ended = m_store.endTask(taskId, {JobState::Stopped, std::nullopt, why});
    if (!ended)
        return ended.error();
    if (!*ended)
        return transaction.commit(); // already ended: a resend
    if (Status counted = LedgerStore(m_db).recordTaskEnd(taskId, true); !counted)
        return counted;
    const Result<TaskRow> task = m_store.task(taskId);
    if (!task)
        return task.error();
    const Result<JobRow> job = m_store.job(task->jobId);
    if (!job)
        return job.error();
    // A job that ended meanwhile, or an attempt another preemption ended already, stays.
    const bool requeue = !isFinal(job->state) && job->attempt == task->attempt;
    const QString reason = why + QStringLiteral("; waiting for a worker");
    if (requeue) {
        qCInfo(lcJobs).noquote() << "job" << job->id << "attempt" << job->attempt << why;
        if (Status stopped = m_store.stopTasks(job->id, job->attempt); !stopped)
            return stopped;
        if (Status requeued = m_store.requeueJob(job->id, reason); !requeued)
            return requeued;
        if (Status told = m_store.addEvent(job->id, taskId, why); !told)
            return told;
    }
    if (Status committed = transaction.commit(); !committed)
        return committed;
    m_scheduler.taskEnded(taskId);
    if (requeue)
        m_scheduler.enqueue(job->id, reason);
    return Ok{};
}

namespace {

struct CompletionVerdict
{
    QString failure; // the role's first failure, when its minFailedTaskCount is reached
    bool succeeded = false;
};

// OpenPAI's completion policy: the attempt fails once a role has minFailedTaskCount failed tasks
// (1 when absent; null never), and succeeds once a role has minSucceededTaskCount succeeded ones.
template <typename Counts>
CompletionVerdict completionVerdict(const QJsonObject &spec, const Counts &roles)
{
    CompletionVerdict verdict;
    for (const QJsonValue &value : spec.value(QStringLiteral("taskRoles")).toArray()) {
        const QJsonObject role = value.toObject();
        const auto count = roles.constFind(role.value(QStringLiteral("name")).toString());
        if (count == roles.cend())
            continue;
        const QJsonValue minFailed = role.value(QStringLiteral("minFailedTaskCount"));
        const int failedLimit = minFailed.isUndefined() ? 1 : minFailed.toInt(0);
        if (failedLimit > 0 && count->failed >= failedLimit && verdict.failure.isEmpty())
            verdict.failure = count->firstFailure;
        const int succeededLimit = role.value(QStringLiteral("minSucceededTaskCount")).toInt(0);
        if (succeededLimit > 0 && count->succeeded >= succeededLimit)
            verdict.succeeded = true;
    }
    return verdict;
}

} // namespace

Result<bool> JobProgress::evaluateJob(qint64 jobId)
{
    const Result<JobRow> job = m_store.job(jobId);
    if (!job)
        return job.error();
    if (isFinal(job->state))
        return false;
    const int attempt = job->attempt;
    const int failedAttempts = job->failedAttempts(); // preempted attempts spend no retry
    const int retryCount = job->retryCount;
    const QJsonObject &spec = job->spec;
    const int killAllOn = spec.value(QStringLiteral("killAllOnCompletedTaskNumber")).toInt();

    const Result<QList<TaskRow>> tasks = m_store.tasksOf(jobId, attempt);
    if (!tasks)
        return tasks.error();
    // Counted per task role for OpenPAI's completion policy (minFailed/minSucceededTaskCount).
    struct RoleCount
    {
        int succeeded = 0;
        int failed = 0;
        QString firstFailure;
    };
    QHash<QString, RoleCount> roles;
    int total = 0;
    int succeeded = 0;
    int failed = 0;
    for (const TaskRow &task : *tasks) {
        ++total;
        RoleCount &count = roles[task.role];
        if (task.state == JobState::Succeeded) {
            ++succeeded;
            ++count.succeeded;
        }
        if (task.state == JobState::Failed) {
            ++failed;
            ++count.failed;
            QString text = QStringLiteral("task %1[%2] failed").arg(task.role).arg(task.roleIndex);
            if (task.exitCode)
                text += QStringLiteral(" with exit code %1").arg(*task.exitCode);
            if (!task.message.isEmpty())
                text += QStringLiteral(": ") + task.message;
            if (count.firstFailure.isEmpty())
                count.firstFailure = text;
        }
    }
    const CompletionVerdict verdict = completionVerdict(spec, roles);
    const QString failure = verdict.failure;
    // Without a policy that ends it earlier, the attempt ends when every task has.
    const bool allEnded = succeeded + failed == total;

    if (!failure.isEmpty()) {
        if (Status ended = m_store.stopTasks(jobId, attempt); !ended)
            return ended.error();
        if (failedAttempts <= retryCount) {
            qCInfo(lcJobs) << "job" << jobId << "attempt" << attempt << "failed; retrying";
            const Status retry = m_store.retryJob(jobId,
                                                  QStringLiteral("retry %1 of %2 after %3")
                                                      .arg(failedAttempts)
                                                      .arg(retryCount)
                                                      .arg(failure));
            return retry ? Result<bool>(true) : Result<bool>(retry.error());
        }
        const Status failed = m_store.moveJob(jobId, JobState::Failed, failure);
        return failed ? Result<bool>(false) : Result<bool>(failed.error());
    }
    if (verdict.succeeded || allEnded || (killAllOn > 0 && succeeded >= killAllOn)) {
        if (Status ended = m_store.stopTasks(jobId, attempt); !ended)
            return ended.error();
        const Status done = m_store.moveJob(jobId, JobState::Succeeded, {});
        return done ? Result<bool>(false) : Result<bool>(done.error());
    }
    return false;
}

} // namespace ddl::server
