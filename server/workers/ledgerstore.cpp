#include "ledgerstore.h"

#include "scheduler/openpaienvironment.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "wire/jobstate.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLoggingCategory>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcLedger, "ddl.server.ledger")

namespace ddl::server {

static constexpr qint64 HourMs = 3600 * 1000;

static Result<qint64> parseTime(const QString &text, const QString &field, qint64 fallback)
{
    if (text.isEmpty())
        return fallback;
    const QDateTime time = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!time.isValid()) {
        return Error::make(
            ErrorCode::BadRequest,
            u"%1: must be an ISO 8601 time such as 2026-11-01T00:00:00Z, not \"%2\""_s.arg(
                field, text.left(64)),
            field);
    }
    return time.toMSecsSinceEpoch();
}

Result<LedgerPeriod> LedgerPeriod::fromText(const QString &since, const QString &until)
{
    LedgerPeriod period;
    const Result<qint64> from = parseTime(since, u"since"_s, period.sinceMs);
    if (!from)
        return from.error();
    const Result<qint64> to = parseTime(until, u"until"_s, period.untilMs);
    if (!to)
        return to.error();
    if (*to < *from)
        return Error::make(ErrorCode::BadRequest, u"until: must not be before since"_s, u"until"_s);
    period.sinceMs = *from;
    period.untilMs = *to;
    return period;
}

Result<qint64> LedgerStore::measuredCpuMs(qint64 taskId, qint64 startedAt)
{
    // A sample's cpu_percent is the task's CPU over the time since the sample before. Thinning
    // drops samples from a long series, so each one kept stands for the time since the one kept
    // before it (the first: since the start). At most utilisation_samples_per_task rows.
    Result<QSqlQuery> samples =
        runSql(m_db,
               u"SELECT at, cpu_percent FROM task_samples WHERE task_id = ? ORDER BY at"_s,
               {taskId});
    if (!samples)
        return samples.error();
    double cpuMs = 0;
    qint64 previous = startedAt;
    while (samples->next()) {
        const qint64 at = samples->value(u"at"_s).toLongLong();
        if (previous > 0 && at > previous)
            cpuMs += samples->value(u"cpu_percent"_s).toDouble() / 100.0 * double(at - previous);
        previous = at;
    }
    // Several busy cores make it more than the wall time, as they should.
    return qint64(cpuMs);
}

Status LedgerStore::recordTaskEnd(qint64 taskId, bool preempted)
{
    Result<QSqlQuery> task =
        runSql(m_db,
               u"SELECT t.worker_id, t.job_id, t.role, t.state, t.gpu_indices, t.started_at, "
               "t.finished_at, j.spec FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.id = ? AND "
               "j.canary_worker_id IS NULL"_s,
               {taskId});
    if (!task)
        return task.error();
    // A canary (docs/trust.md) is the server's check of the worker, not work it contributed.
    if (!task->next() || task->value(u"worker_id"_s).isNull())
        return Ok{};
    const qint64 workerId = task->value(u"worker_id"_s).toLongLong();
    const qint64 jobId = task->value(u"job_id"_s).toLongLong();
    const qint64 startedAt = task->value(u"started_at"_s).toLongLong();
    const qint64 finishedAt = task->value(u"finished_at"_s).toLongLong();
    // A task that ended before its process started (lost while its data arrived) gave no time.
    const qint64 wallMs = startedAt > 0 && finishedAt > startedAt ? finishedAt - startedAt : 0;
    const QJsonObject spec = QJsonDocument::fromJson(task->value(u"spec"_s).toByteArray()).object();
    // As the scheduler reserves them: cpuNumber, 1 when the role leaves it out.
    const int cpus =
        roleNamed(spec, task->value(u"role"_s).toString()).value(u"cpuNumber"_s).toInt(1);
    const int gpus = int(parseGpuIndices(task->value(u"gpu_indices"_s).toString()).size());
    const QString outcome = preempted ? u"PREEMPTED"_s : task->value(u"state"_s).toString();
    task->finish();

    const Result<qint64> cpuMs = measuredCpuMs(taskId, startedAt);
    if (!cpuMs)
        return cpuMs.error();

    const Result<QSqlQuery> insert = runSql(
        m_db,
        u"INSERT INTO ledger_tasks (task_id, worker_id, job_id, ended_at, outcome, gpus, cpus, "
        "wall_ms, cpu_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO NOTHING"_s,
        {taskId,
         workerId,
         jobId,
         finishedAt > 0 ? finishedAt : nowMs(),
         outcome,
         gpus,
         cpus,
         wallMs,
         *cpuMs});
    return insert ? Status(Ok{}) : Status(insert.error());
}

void LedgerStore::addTransfer(qint64 workerId, qint64 downloaded, qint64 uploaded)
{
    if (downloaded <= 0 && uploaded <= 0)
        return;
    const qint64 now = nowMs();
    const Result<QSqlQuery> upsert = runSql(
        m_db,
        u"INSERT INTO ledger_bytes (worker_id, hour, downloaded, uploaded) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (worker_id, hour) DO UPDATE SET downloaded = ledger_bytes.downloaded + "
        "excluded.downloaded, uploaded = ledger_bytes.uploaded + excluded.uploaded"_s,
        {workerId,
         now - now % HourMs,
         std::max<qint64>(downloaded, 0),
         std::max<qint64>(uploaded, 0)});
    if (!upsert)
        qCWarning(lcLedger).noquote()
            << "cannot count bytes of worker" << workerId << ":" << upsert.error().message;
}

void LedgerStore::addUploadedBy(const QString &uploadOwner, qint64 bytes)
{
    if (!uploadOwner.startsWith(u"worker:"))
        return;
    bool ok = false;
    const qint64 workerId = uploadOwner.mid(7).toLongLong(&ok);
    if (ok)
        addTransfer(workerId, 0, bytes);
}

Result<std::optional<qint64>> LedgerStore::ownerOf(qint64 workerId)
{
    Result<QSqlQuery> row =
        runSql(m_db, u"SELECT owner_id FROM workers WHERE id = ?"_s, {workerId});
    if (!row)
        return row.error();
    if (!row->next())
        return std::optional<qint64>();
    return std::optional<qint64>(row->value(u"owner_id"_s).toLongLong());
}

Result<LedgerTotals>
LedgerStore::totals(const QString &workers, const QVariantList &binds, const LedgerPeriod &period)
{
    Result<QSqlQuery> tasks = runSql(
        m_db,
        u"SELECT COUNT(*) AS run, COALESCE(SUM(CASE WHEN outcome = ? THEN 1 ELSE 0 END), 0) AS "
        "succeeded, COALESCE(SUM(CASE WHEN outcome = ? THEN 1 ELSE 0 END), 0) AS failed, "
        "COALESCE(SUM(CASE WHEN outcome = 'PREEMPTED' THEN 1 ELSE 0 END), 0) AS preempted, "
        "COALESCE(SUM(gpus * wall_ms), 0) AS gpu_ms, COALESCE(SUM(cpus * wall_ms), 0) AS "
        "cpu_core_ms, COALESCE(SUM(cpu_ms), 0) AS cpu_ms, COUNT(DISTINCT job_id) AS jobs FROM "
        "ledger_tasks WHERE worker_id IN ("_s +
            workers + u") AND ended_at >= ? AND ended_at < ?"_s,
        QVariantList{stateName(JobState::Succeeded), stateName(JobState::Failed)} + binds +
            QVariantList{period.sinceMs, period.untilMs});
    if (!tasks)
        return tasks.error();
    LedgerTotals totals;
    if (tasks->next()) {
        // PostgreSQL sums BIGINTs as NUMERIC (text in Qt): toLongLong reads either exactly.
        const auto count = [&](const QString &column) { return tasks->value(column).toLongLong(); };
        totals.tasksRun = count(u"run"_s);
        totals.tasksSucceeded = count(u"succeeded"_s);
        totals.tasksFailed = count(u"failed"_s);
        totals.preemptions = count(u"preempted"_s);
        totals.jobs = count(u"jobs"_s);
        totals.gpuSeconds = double(count(u"gpu_ms"_s)) / 1000.0;
        totals.cpuCoreSeconds = double(count(u"cpu_core_ms"_s)) / 1000.0;
        totals.cpuSecondsMeasured = double(count(u"cpu_ms"_s)) / 1000.0;
    }
    tasks->finish();
    // Hours that begin in the period; an hour that began before `since` is left out whole.
    const qint64 firstHour = period.sinceMs % HourMs == 0
                                 ? period.sinceMs
                                 : period.sinceMs - period.sinceMs % HourMs + HourMs;
    Result<QSqlQuery> bytes =
        runSql(m_db,
               u"SELECT COALESCE(SUM(downloaded), 0) AS downloaded, COALESCE(SUM(uploaded), 0) AS "
               "uploaded FROM ledger_bytes WHERE worker_id IN ("_s +
                   workers + u") AND hour >= ? AND hour < ?"_s,
               binds + QVariantList{firstHour, period.untilMs});
    if (!bytes)
        return bytes.error();
    if (bytes->next()) {
        totals.bytesDownloaded = bytes->value(u"downloaded"_s).toLongLong();
        totals.bytesUploaded = bytes->value(u"uploaded"_s).toLongLong();
    }
    return totals;
}

Result<WorkerLedger> LedgerStore::workerLedger(qint64 workerId, const LedgerPeriod &period)
{
    Result<QSqlQuery> row = runSql(m_db,
                                   u"SELECT w.name, u.email FROM workers w LEFT JOIN users u ON "
                                   "u.id = w.owner_id WHERE w.id = ?"_s,
                                   {workerId});
    if (!row)
        return row.error();
    if (!row->next()) {
        return Error::make(ErrorCode::NotFound, u"no worker %1"_s.arg(workerId), u"worker_id"_s);
    }
    WorkerLedger ledger;
    ledger.workerId = QString::number(workerId);
    ledger.name = row->value(u"name"_s).toString();
    ledger.owner = row->value(u"email"_s).toString();
    row->finish();
    Result<LedgerTotals> sums = totals(u"?"_s, {workerId}, period);
    if (!sums)
        return sums.error();
    ledger.totals = *sums;
    return ledger;
}

Result<OwnerLedger> LedgerStore::ownerLedger(qint64 userId, const LedgerPeriod &period)
{
    Result<QSqlQuery> owned =
        runSql(m_db, u"SELECT id FROM workers WHERE owner_id = ? ORDER BY name, id"_s, {userId});
    if (!owned)
        return owned.error();
    QList<qint64> ids;
    while (owned->next())
        ids << owned->value(u"id"_s).toLongLong();
    owned->finish();
    OwnerLedger ledger;
    for (const qint64 id : std::as_const(ids)) {
        Result<WorkerLedger> worker = workerLedger(id, period);
        if (!worker)
            return worker.error();
        ledger.workers.append(*worker);
    }
    Result<LedgerTotals> sums =
        totals(u"SELECT id FROM workers WHERE owner_id = ?"_s, {userId}, period);
    if (!sums)
        return sums.error();
    ledger.total = *sums;
    return ledger;
}

} // namespace ddl::server
