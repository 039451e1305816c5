#include "jobprogress.h"

#include "jobstate.h"
#include "scheduler/scheduler.h"
#include "store/sql.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcJobs, "ddl.server.jobs")

namespace ddl::server {

JobProgress::JobProgress(const QSqlDatabase &db, Scheduler &scheduler)
    : m_db(db)
    , m_scheduler(scheduler)
{}

Status JobProgress::taskStarted(qint64 taskId)
{
    const qint64 now = nowMs();
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    for (const auto &[sql, binds] : QList<std::pair<QString, QVariantList>>{
             {QStringLiteral("UPDATE tasks SET started_at = ? WHERE id = ? AND started_at = 0"),
              {now, taskId}},
             {QStringLiteral("UPDATE jobs SET state = ?, reason = '', started_at = CASE WHEN "
                             "started_at = 0 THEN ? ELSE started_at END WHERE id = (SELECT job_id "
                             "FROM tasks WHERE id = ?) AND state = ?"),
              {JobState::Running, now, taskId, JobState::Waiting}}}) {
        if (Result<QSqlQuery> query = runSql(m_db, sql, binds); !query)
            return query.error();
    }
    return transaction.commit();
}

Status JobProgress::taskEnded(qint64 taskId, const TaskOutcome &outcome)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    Result<QSqlQuery> update = runSql(
        m_db,
        QStringLiteral("UPDATE tasks SET state = ?, exit_code = ?, message = COALESCE(?, ''), finished_at = ? "
                       "WHERE id = ? AND state = ?"),
        {outcome.state, outcome.exitCode ? QVariant(*outcome.exitCode) : QVariant(),
         outcome.message, nowMs(), taskId, JobState::Running});
    if (!update)
        return update.error();
    if (update->numRowsAffected() == 0)
        return transaction.commit(); // already ended: a resend
    Result<QSqlQuery> job = runSql(m_db, QStringLiteral("SELECT job_id FROM tasks WHERE id = ?"),
                                   {taskId});
    if (!job)
        return job.error();
    const qint64 jobId = job->next() ? job->value(0).toLongLong() : 0;
    Result<bool> retried = jobId ? evaluateJob(jobId) : Result<bool>(false);
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

// Stops what is left of an attempt: waiting tasks at once, running ones at their next heartbeat.
Status JobProgress::endAttempt(qint64 jobId, int attempt)
{
    for (const auto &[sql, binds] : QList<std::pair<QString, QVariantList>>{
             {QStringLiteral("UPDATE tasks SET state = ?, finished_at = ? WHERE job_id = ? AND "
                             "attempt = ? AND state = ?"),
              {JobState::Stopped, nowMs(), jobId, attempt, JobState::Waiting}},
             {QStringLiteral("UPDATE tasks SET cancel_requested = 1 WHERE job_id = ? AND attempt "
                             "= ? AND state = ?"),
              {jobId, attempt, JobState::Running}}}) {
        if (Result<QSqlQuery> query = runSql(m_db, sql, binds); !query)
            return query.error();
    }
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
    Result<QSqlQuery> job = runSql(m_db,
                                   QStringLiteral("SELECT state, attempt, retry_count, spec FROM "
                                                  "jobs WHERE id = ?"),
                                   {jobId});
    if (!job)
        return job.error();
    if (!job->next() || JobState::isFinal(job->value(0).toString()))
        return false;
    const int attempt = job->value(1).toInt();
    const int retryCount = job->value(2).toInt();
    const QJsonObject spec = QJsonDocument::fromJson(job->value(3).toByteArray()).object();
    const int killAllOn = spec.value(QStringLiteral("killAllOnCompletedTaskNumber")).toInt();

    Result<QSqlQuery> tasks = runSql(m_db,
                                     QStringLiteral("SELECT state, role, role_index, exit_code, "
                                                    "message FROM tasks WHERE job_id = ? AND "
                                                    "attempt = ?"),
                                     {jobId, attempt});
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
    while (tasks->next()) {
        ++total;
        const QString state = tasks->value(0).toString();
        RoleCount &count = roles[tasks->value(1).toString()];
        if (state == JobState::Succeeded) {
            ++succeeded;
            ++count.succeeded;
        }
        if (state == JobState::Failed) {
            ++failed;
            ++count.failed;
            QString text = QStringLiteral("task %1[%2] failed")
                               .arg(tasks->value(1).toString())
                               .arg(tasks->value(2).toInt());
            if (!tasks->value(3).isNull())
                text += QStringLiteral(" with exit code %1").arg(tasks->value(3).toInt());
            if (!tasks->value(4).toString().isEmpty())
                text += QStringLiteral(": ") + tasks->value(4).toString();
            if (count.firstFailure.isEmpty())
                count.firstFailure = text;
        }
    }
    const CompletionVerdict verdict = completionVerdict(spec, roles);
    const QString failure = verdict.failure;
    // Without a policy that ends it earlier, the attempt ends when every task has.
    const bool allEnded = succeeded + failed == total;

    const qint64 now = nowMs();
    if (!failure.isEmpty()) {
        if (Status ended = endAttempt(jobId, attempt); !ended)
            return ended.error();
        if (attempt <= retryCount) {
            qCInfo(lcJobs) << "job" << jobId << "attempt" << attempt << "failed; retrying";
            Result<QSqlQuery> retry = runSql(
                m_db,
                QStringLiteral("INSERT INTO tasks (job_id, attempt, task_index, role, role_index, "
                               "state) SELECT job_id, attempt + 1, task_index, role, role_index, ? "
                               "FROM tasks WHERE job_id = ? AND attempt = ?"),
                {JobState::Waiting, jobId, attempt});
            if (!retry)
                return retry.error();
            Result<QSqlQuery> update = runSql(
                m_db,
                QStringLiteral("UPDATE jobs SET state = ?, attempt = ?, reason = ? WHERE id = ?"),
                {JobState::Waiting, attempt + 1,
                 QStringLiteral("retry %1 of %2 after %3").arg(attempt).arg(retryCount).arg(failure),
                 jobId});
            return update ? Result<bool>(true) : Result<bool>(update.error());
        }
        Result<QSqlQuery> update = runSql(m_db,
                                          QStringLiteral("UPDATE jobs SET state = ?, reason = ?, "
                                                         "finished_at = ? WHERE id = ?"),
                                          {JobState::Failed, failure, now, jobId});
        return update ? Result<bool>(false) : Result<bool>(update.error());
    }
    if (verdict.succeeded || allEnded || (killAllOn > 0 && succeeded >= killAllOn)) {
        if (Status ended = endAttempt(jobId, attempt); !ended)
            return ended.error();
        Result<QSqlQuery> update = runSql(m_db,
                                          QStringLiteral("UPDATE jobs SET state = ?, reason = '', "
                                                         "finished_at = ? WHERE id = ?"),
                                          {JobState::Succeeded, now, jobId});
        return update ? Result<bool>(false) : Result<bool>(update.error());
    }
    return false;
}

} // namespace ddl::server
