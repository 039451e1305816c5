#include "jobstore.h"

#include "sql.h"

#include <QJsonDocument>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ddl::server {

JobStore::JobStore(const QSqlDatabase &db)
    : m_db(db)
{
}

bool JobStore::jobMayMove(JobState from, JobState to)
{
    switch (from) {
    case JobState::Waiting:
        return to != JobState::Waiting;
    case JobState::Running:
        return isFinal(to);
    case JobState::Succeeded:
    case JobState::Failed:
    case JobState::Stopped:
        return false;
    }
    return false;
}

bool JobStore::taskMayMove(JobState from, JobState to)
{
    if (from == JobState::Waiting)
        return to == JobState::Running || to == JobState::Stopped;
    return from == JobState::Running && isFinal(to);
}

static Error refusedMove(const QString &what, qint64 id, JobState from, JobState to)
{
    return Error::make(ErrorCode::Conflict,
                       u"%1 %2 is %3 and cannot become %4"_s.arg(what).arg(id).arg(stateName(from),
                                                                                   stateName(to)));
}

static Result<JobState> stateOf(const QSqlQuery &row)
{
    return parseJobState(row.value(u"state"_s).toString());
}

Result<JobRow> JobStore::job(qint64 jobId) const
{
    Result<QSqlQuery> query = runSql(m_db,
                                     u"SELECT id, user_id, uuid, name, state, spec, attempt, "
                                     "retry_count, preemptions, reason FROM jobs WHERE id = ?"_s,
                                     {jobId});
    if (!query)
        return query.error();
    if (!query->next())
        return Error::make(ErrorCode::NotFound, u"job %1 does not exist"_s.arg(jobId));
    const QSqlQuery &row = *query;
    const Result<JobState> state = stateOf(row);
    if (!state)
        return state.error();
    JobRow job;
    job.id = row.value(u"id"_s).toLongLong();
    job.userId = row.value(u"user_id"_s).toLongLong();
    job.uuid = row.value(u"uuid"_s).toString();
    job.name = row.value(u"name"_s).toString();
    job.state = *state;
    job.spec = QJsonDocument::fromJson(row.value(u"spec"_s).toByteArray()).object();
    job.attempt = row.value(u"attempt"_s).toInt();
    job.retryCount = row.value(u"retry_count"_s).toInt();
    job.preemptions = row.value(u"preemptions"_s).toInt();
    job.reason = row.value(u"reason"_s).toString();
    return job;
}

static constexpr auto TaskColumns = "SELECT id, job_id, attempt, role, role_index, state, "
                                    "exit_code, message, cancel_requested, worker_id, started_at "
                                    "FROM tasks "_L1;

static Result<TaskRow> taskOf(const QSqlQuery &row)
{
    const Result<JobState> state = stateOf(row);
    if (!state)
        return state.error();
    TaskRow task;
    task.id = row.value(u"id"_s).toLongLong();
    task.jobId = row.value(u"job_id"_s).toLongLong();
    task.attempt = row.value(u"attempt"_s).toInt();
    task.role = row.value(u"role"_s).toString();
    task.roleIndex = row.value(u"role_index"_s).toInt();
    task.state = *state;
    if (!row.value(u"exit_code"_s).isNull())
        task.exitCode = row.value(u"exit_code"_s).toInt();
    task.message = row.value(u"message"_s).toString();
    task.cancelRequested = row.value(u"cancel_requested"_s).toBool();
    task.workerId = row.value(u"worker_id"_s).toLongLong();
    task.startedAt = row.value(u"started_at"_s).toLongLong();
    return task;
}

Result<TaskRow> JobStore::task(qint64 taskId) const
{
    Result<QSqlQuery> query = runSql(m_db, TaskColumns + u"WHERE id = ?"_s, {taskId});
    if (!query)
        return query.error();
    if (!query->next())
        return Error::make(ErrorCode::NotFound, u"task %1 does not exist"_s.arg(taskId));
    return taskOf(*query);
}

Result<QList<TaskRow>> JobStore::tasksOf(qint64 jobId, int attempt) const
{
    Result<QSqlQuery> query = runSql(m_db,
                                     TaskColumns + u"WHERE job_id = ? AND attempt = ? "
                                                   "ORDER BY task_index"_s,
                                     {jobId, attempt});
    if (!query)
        return query.error();
    QList<TaskRow> tasks;
    while (query->next()) {
        Result<TaskRow> task = taskOf(*query);
        if (!task)
            return task.error();
        tasks.append(*task);
    }
    return tasks;
}

static QVariant orNull(const QString &text)
{
    return text.isEmpty() ? QVariant() : QVariant(text);
}

Result<qint64> JobStore::addJob(const NewJob &job)
{
    const Result<qint64> jobId = insertReturningId(
        m_db,
        u"INSERT INTO jobs (uuid, user_id, name, kind, state, spec, package_sha256, commit_id, "
        "dataset_sha256, attempt, retry_count, reason, created_at, priority, dataset_manifest, "
        "image_manifest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)"_s,
        {job.uuid,
         job.userId,
         job.name,
         job.kind,
         stateName(JobState::Waiting),
         QString::fromUtf8(QJsonDocument(job.spec).toJson(QJsonDocument::Compact)),
         QString(job.packageSha256.isNull() ? u""_s : job.packageSha256),
         QString(job.commit.isNull() ? u""_s : job.commit),
         orNull(job.datasetSha256),
         job.retryCount,
         job.reason,
         nowMs(),
         job.priority,
         orNull(job.datasetManifest),
         orNull(job.imageManifest)});
    if (!jobId)
        return jobId.error();
    int taskIndex = 0;
    for (const auto &[role, taskNumber] : job.roles) {
        for (int roleIndex = 0; roleIndex < taskNumber; ++roleIndex) {
            if (Result<QSqlQuery> task =
                    runSql(m_db,
                           u"INSERT INTO tasks (job_id, attempt, task_index, "
                           "role, role_index, state) VALUES (?, 1, ?, ?, ?, "
                           "?)"_s,
                           {*jobId, taskIndex++, role, roleIndex, stateName(JobState::Waiting)});
                !task)
                return task.error();
        }
    }
    return *jobId;
}

QString gpuIndicesText(const QList<int> &indices)
{
    QStringList parts;
    for (const int index : indices)
        parts << QString::number(index);
    return parts.join(u',');
}

QList<int> parseGpuIndices(const QString &text)
{
    QList<int> indices;
    for (const QString &part : text.split(u',', Qt::SkipEmptyParts))
        indices << part.toInt();
    return indices;
}

Result<bool> JobStore::placeTask(const TaskPlacement &placement)
{
    // Guarded in the statement itself: only a waiting task is placed.
    const Result<QSqlQuery> update = runSql(
        m_db,
        u"UPDATE tasks SET state = ?, worker_id = ?, port = ?, gpu_indices = COALESCE(?, ''), "
        "leased_at = ?, "
        "delivered = 0 WHERE id = ? AND state = ?"_s,
        {stateName(JobState::Running),
         placement.workerId,
         placement.port,
         gpuIndicesText(placement.gpuIndices),
         nowMs(),
         placement.taskId,
         stateName(JobState::Waiting)});
    if (!update)
        return update.error();
    return update->numRowsAffected() > 0;
}

Status JobStore::setWaitingReason(qint64 jobId, const QString &reason)
{
    const Result<QSqlQuery> update =
        runSql(m_db,
               u"UPDATE jobs SET reason = COALESCE(?, '') WHERE id = ? AND state = ?"_s,
               {reason, jobId, stateName(JobState::Waiting)});
    return update ? Status(Ok{}) : Status(update.error());
}

Status JobStore::markDelivered(qint64 taskId)
{
    const Result<QSqlQuery> update = runSql(m_db,
                                            u"UPDATE tasks SET delivered = 1, leased_at = ? WHERE "
                                            "id = ?"_s,
                                            {nowMs(), taskId});
    return update ? Status(Ok{}) : Status(update.error());
}

Status JobStore::moveJob(qint64 jobId, JobState to, const QString &reason)
{
    const Result<JobRow> current = job(jobId);
    if (!current)
        return current.error();
    if (!jobMayMove(current->state, to))
        return refusedMove(u"job"_s, jobId, current->state, to);
    // RUNNING keeps the first start; a final state records the end.
    const QString sql =
        to == JobState::Running
            ? u"UPDATE jobs SET state = ?, reason = COALESCE(?, ''), started_at = CASE WHEN "
              "started_at = 0 THEN ? ELSE started_at END WHERE id = ?"_s
            : u"UPDATE jobs SET state = ?, reason = COALESCE(?, ''), finished_at = ? "
              "WHERE id = ?"_s;
    const Result<QSqlQuery> update = runSql(m_db, sql, {stateName(to), reason, nowMs(), jobId});
    return update ? Status(Ok{}) : Status(update.error());
}

Status JobStore::retryJob(qint64 jobId, const QString &reason)
{
    const Result<JobRow> current = job(jobId);
    if (!current)
        return current.error();
    if (isFinal(current->state))
        return refusedMove(u"job"_s, jobId, current->state, JobState::Waiting);
    if (current->failedAttempts() > current->retryCount) {
        return Error::make(ErrorCode::Conflict,
                           u"job %1 has used its %2 retries"_s.arg(jobId).arg(current->retryCount));
    }
    return beginAttempt(*current, reason, false);
}

Status JobStore::requeueJob(qint64 jobId, const QString &reason)
{
    const Result<JobRow> current = job(jobId);
    if (!current)
        return current.error();
    if (isFinal(current->state))
        return refusedMove(u"job"_s, jobId, current->state, JobState::Waiting);
    return beginAttempt(*current, reason, true);
}

Status JobStore::addEvent(qint64 jobId, qint64 taskId, const QString &message)
{
    const Result<QSqlQuery> insert = runSql(
        m_db,
        u"INSERT INTO job_events (job_id, task_id, at, message) VALUES (?, ?, ?, ?)"_s,
        {jobId, taskId, nowMs(), message});
    return insert ? Status(Ok{}) : Status(insert.error());
}

Status JobStore::beginAttempt(const JobRow &current, const QString &reason, bool preempted)
{
    const qint64 jobId = current.id;
    const QString waiting = stateName(JobState::Waiting);
    for (const auto &[sql, binds] : QList<std::pair<QString, QVariantList>>{
             {u"INSERT INTO tasks (job_id, attempt, task_index, role, role_index, state) SELECT "
              "job_id, attempt + 1, task_index, role, role_index, ? FROM tasks WHERE job_id = ? "
              "AND attempt = ?"_s,
              {waiting, jobId, current.attempt}},
             {u"UPDATE jobs SET state = ?, attempt = ?, preemptions = ?, "
              "reason = COALESCE(?, '') WHERE id = ?"_s,
              {waiting, current.attempt + 1, current.preemptions + (preempted ? 1 : 0), reason,
               jobId}}}) {
        if (Result<QSqlQuery> query = runSql(m_db, sql, binds); !query)
            return query.error();
    }
    return Ok{};
}

Result<bool> JobStore::endTask(qint64 taskId, const TaskEnd &end)
{
    const Result<TaskRow> current = task(taskId);
    if (!current)
        return current.error();
    if (isFinal(current->state) && isFinal(end.state))
        return false; // a resend of an end already stored
    if (current->state != JobState::Running || !taskMayMove(current->state, end.state))
        return refusedMove(u"task"_s, taskId, current->state, end.state);
    const Result<QSqlQuery> update = runSql(
        m_db,
        u"UPDATE tasks SET state = ?, exit_code = ?, message = COALESCE(?, ''), finished_at = ? "
        "WHERE id = ?"_s,
        {stateName(end.state),
         end.exitCode ? QVariant(*end.exitCode) : QVariant(),
         end.message,
         nowMs(),
         taskId});
    if (!update)
        return update.error();
    // What the worker's trust counts (docs/trust.md): tasks that ended on it, and of those the
    // ones that failed for the worker's reasons. Stopped tasks (cancelled, preempted) count not.
    if (current->workerId > 0 && end.state != JobState::Stopped) {
        const bool workerFault =
            end.state == JobState::Failed
            && (end.workerFault || (!end.exitCode && current->startedAt == 0));
        const Result<QSqlQuery> counted = runSql(
            m_db,
            u"UPDATE workers SET tasks_ended = tasks_ended + 1, tasks_failed_by_worker = "
            "tasks_failed_by_worker + ? WHERE id = ?"_s,
            {workerFault ? 1 : 0, current->workerId});
        if (!counted)
            return counted.error();
    }
    return true;
}

Status JobStore::taskStarted(qint64 taskId)
{
    const Result<QSqlQuery> update =
        runSql(m_db,
               u"UPDATE tasks SET started_at = ? WHERE id = ? AND started_at = 0"_s,
               {nowMs(), taskId});
    return update ? Status(Ok{}) : Status(update.error());
}

Status JobStore::stopTasks(qint64 jobId, int attempt)
{
    const QString ofAttempt = attempt > 0 ? u" AND attempt = ?"_s : QString();
    QVariantList stop{stateName(JobState::Stopped), nowMs(), jobId};
    QVariantList ask{jobId};
    if (attempt > 0) {
        stop << attempt;
        ask << attempt;
    }
    stop << stateName(JobState::Waiting);
    ask << stateName(JobState::Running);
    for (const auto &[sql, binds] : QList<std::pair<QString, QVariantList>>{
             {u"UPDATE tasks SET state = ?, finished_at = ? WHERE job_id = ?"_s + ofAttempt +
                  u" AND state = ?"_s,
              stop},
             {u"UPDATE tasks SET cancel_requested = 1 WHERE job_id = ?"_s + ofAttempt +
                  u" AND state = ?"_s,
              ask}}) {
        if (Result<QSqlQuery> query = runSql(m_db, sql, binds); !query)
            return query.error();
    }
    return Ok{};
}

} // namespace ddl::server
