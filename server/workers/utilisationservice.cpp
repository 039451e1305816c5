#include "utilisationservice.h"

#include "store/sql.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace ddl::server {

static Error badField(const QString &field, const QString &what)
{
    return Error::make(ErrorCode::BadRequest, field + u": "_s + what, field);
}

UtilisationService::UtilisationService(const QSqlDatabase &db, UtilisationLimits limits)
    : m_db(db)
    , m_limits(limits)
{
}

// The samples of one list of a batch, each checked; errors name the field
// ("tasks[0].samples[3].cpu_percent: ...").
static Result<QList<UtilisationSample>> readSamples(const QJsonValue &value, const QString &field)
{
    if (!value.isUndefined() && !value.isArray())
        return badField(field, u"must be a list of samples"_s);
    QList<UtilisationSample> samples;
    const QJsonArray array = value.toArray();
    const qint64 latest = nowMs() + UtilisationService::MaxClockAheadMs;
    for (qsizetype i = 0; i < array.size(); ++i) {
        Result<UtilisationSample> sample = UtilisationSample::fromJson(array.at(i).toObject());
        if (!sample) {
            return badField(u"%1[%2].%3"_s.arg(field).arg(i).arg(sample.error().field),
                            sample.error().message.section(u": "_s, 1));
        }
        if (sample->atMs <= latest)
            samples.append(*sample);
    }
    std::sort(
        samples.begin(), samples.end(), [](const UtilisationSample &a, const UtilisationSample &b) {
            return a.atMs < b.atMs;
        });
    return samples;
}

Result<QJsonObject> UtilisationService::record(const WorkerRef &worker, const QJsonObject &request)
{
    const QJsonArray tasks = request.value(u"tasks"_s).toArray();
    if (tasks.size() > MaxTasksPerBatch)
        return badField(u"tasks"_s, u"a batch holds at most %1 tasks"_s.arg(MaxTasksPerBatch));
    Result<QList<UtilisationSample>> machine = readSamples(request.value(u"worker"_s), u"worker"_s);
    if (!machine)
        return machine.error();
    qsizetype total = machine->size();
    QList<std::pair<qint64, QList<UtilisationSample>>> perTask;
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const QJsonObject task = tasks.at(i).toObject();
        const QString field = u"tasks[%1]"_s.arg(i);
        const qint64 taskId = task.value(u"task_id"_s).toInteger(-1);
        if (taskId < 0)
            return badField(field + u".task_id"_s, u"must be a task number"_s);
        Result<QList<UtilisationSample>> samples =
            readSamples(task.value(u"samples"_s), field + u".samples"_s);
        if (!samples)
            return samples.error();
        total += samples->size();
        perTask.append({taskId, std::move(*samples)});
    }
    if (total > MaxSamplesPerBatch) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           u"a batch holds at most %1 samples (this one %2); send more often"_s
                               .arg(MaxSamplesPerBatch)
                               .arg(total));
    }

    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    int stored = 0;
    QJsonArray ignored;
    for (const auto &[taskId, samples] : std::as_const(perTask)) {
        // Only the worker a task was leased to speaks for it (in any state: the last samples
        // may arrive after the task's end was reported).
        Result<QSqlQuery> owner =
            runSql(m_db, u"SELECT worker_id FROM tasks WHERE id = ?"_s, {taskId});
        if (!owner)
            return owner.error();
        if (!owner->next() || owner->value(0).toLongLong() != worker.id) {
            ignored.append(taskId);
            continue;
        }
        owner->finish();
        Result<int> count =
            store({"task_samples", "task_id", taskId, m_limits.samplesPerTask}, samples);
        if (!count)
            return count.error();
        stored += *count;
    }
    const Series machineSeries{"worker_samples", "worker_id", worker.id, m_limits.samplesPerWorker};
    Result<int> count = store(machineSeries, *machine);
    if (!count)
        return count.error();
    stored += *count;
    if (!machine->isEmpty()) {
        Result<QSqlQuery> purged =
            runSql(m_db,
                   u"DELETE FROM worker_samples WHERE worker_id = ? AND at < ?"_s,
                   {worker.id, nowMs() - m_limits.workerRetentionMs});
        if (!purged)
            return purged.error();
    }
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    return QJsonObject{{u"stored"_s, stored}, {u"ignored_tasks"_s, ignored}};
}

Result<int> UtilisationService::store(const Series &series, const QList<UtilisationSample> &samples)
{
    if (samples.isEmpty())
        return 0;
    const QString table = QString::fromLatin1(series.table);
    const QString key = QString::fromLatin1(series.keyColumn);
    Result<QSqlQuery> newest = runSql(
        m_db, u"SELECT MAX(at) AS newest FROM %1 WHERE %2 = ?"_s.arg(table, key), {series.key});
    if (!newest)
        return newest.error();
    const qint64 after =
        newest->next() && !newest->value(0).isNull() ? newest->value(0).toLongLong() : -1;
    newest->finish();
    int stored = 0;
    qint64 last = after;
    for (const UtilisationSample &sample : samples) {
        if (sample.atMs <= last)
            continue; // a resend, or two samples of the same millisecond
        last = sample.atMs;
        // A JSON list, "[]" for none.
        const QJsonArray gpus =
            UtilisationSample{0, 0, 0, sample.gpus}.toJson().value(u"gpus"_s).toArray();
        Result<QSqlQuery> insert = runSql(
            m_db,
            u"INSERT INTO %1 (%2, at, cpu_percent, memory_bytes, gpus) VALUES (?, ?, ?, ?, ?)"_s
                .arg(table, key),
            {series.key,
             sample.atMs,
             sample.cpuPercent,
             sample.memoryBytes,
             QString::fromUtf8(QJsonDocument(gpus).toJson(QJsonDocument::Compact))});
        if (!insert)
            return insert.error();
        ++stored;
    }
    if (Status thinned = thin(series); !thinned)
        return thinned.error();
    return stored;
}

Status UtilisationService::thin(const Series &series)
{
    const QString table = QString::fromLatin1(series.table);
    const QString key = QString::fromLatin1(series.keyColumn);
    // A pass takes a quarter of the samples out; a batch may need more than one.
    for (;;) {
        Result<QSqlQuery> count =
            runSql(m_db,
                   u"SELECT COUNT(*) AS samples FROM %1 WHERE %2 = ?"_s.arg(table, key),
                   {series.key});
        if (!count)
            return count.error();
        const qint64 samples = count->next() ? count->value(0).toLongLong() : 0;
        count->finish();
        if (samples <= series.limit)
            return Ok{};
        // Every second sample of the older half goes (never the first): the newest stay at
        // full resolution.
        Result<QSqlQuery> older =
            runSql(m_db,
                   u"SELECT at FROM %1 WHERE %2 = ? ORDER BY at LIMIT ?"_s.arg(table, key),
                   {series.key, samples / 2});
        if (!older)
            return older.error();
        QList<qint64> drop;
        for (int row = 0; older->next(); ++row) {
            if (row % 2 == 1)
                drop.append(older->value(0).toLongLong());
        }
        older->finish();
        if (drop.isEmpty())
            return Ok{};
        for (qint64 at : std::as_const(drop)) {
            Result<QSqlQuery> removed =
                runSql(m_db,
                       u"DELETE FROM %1 WHERE %2 = ? AND at = ?"_s.arg(table, key),
                       {series.key, at});
            if (!removed)
                return removed.error();
        }
    }
}

Result<QList<UtilisationSample>> UtilisationService::read(const Series &series)
{
    Result<QSqlQuery> rows =
        runSql(m_db,
               u"SELECT at, cpu_percent, memory_bytes, gpus FROM %1 WHERE "
               u"%2 = ? ORDER BY at"_s.arg(QString::fromLatin1(series.table),
                                           QString::fromLatin1(series.keyColumn)),
               {series.key});
    if (!rows)
        return rows.error();
    QList<UtilisationSample> samples;
    while (rows->next()) {
        QJsonObject object{{u"at"_s, rows->value(0).toLongLong()},
                           {u"cpu_percent"_s, rows->value(1).toDouble()},
                           {u"memory_bytes"_s, rows->value(2).toLongLong()}};
        const QJsonArray gpus = QJsonDocument::fromJson(rows->value(3).toString().toUtf8()).array();
        if (!gpus.isEmpty())
            object.insert(u"gpus"_s, gpus);
        if (Result<UtilisationSample> sample = UtilisationSample::fromJson(object))
            samples.append(*sample);
    }
    return samples;
}

Result<QJsonObject> UtilisationService::forJob(qint64 jobId, std::optional<int> attempt)
{
    if (!attempt) {
        Result<QSqlQuery> job = runSql(m_db, u"SELECT attempt FROM jobs WHERE id = ?"_s, {jobId});
        if (!job)
            return job.error();
        attempt = job->next() ? job->value(0).toInt() : 1;
    }
    Result<QSqlQuery> rows = runSql(
        m_db,
        u"SELECT t.id, t.role, t.role_index, t.state, t.gpu_indices, w.name AS worker FROM tasks "
        u"t LEFT JOIN workers w ON w.id = t.worker_id WHERE t.job_id = ? AND t.attempt = ? ORDER "
        u"BY t.task_index"_s,
        {jobId, *attempt});
    if (!rows)
        return rows.error();
    QList<TaskUtilisation> tasks;
    while (rows->next()) {
        TaskUtilisation task;
        task.taskId = rows->value(u"id"_s).toLongLong();
        task.attempt = *attempt;
        task.role = rows->value(u"role"_s).toString();
        task.roleIndex = rows->value(u"role_index"_s).toInt();
        task.state = rows->value(u"state"_s).toString();
        task.worker = rows->value(u"worker"_s).toString();
        for (const QString &index :
             rows->value(u"gpu_indices"_s).toString().split(u',', Qt::SkipEmptyParts))
            task.gpuIndices.append(index.toInt());
        tasks.append(task);
    }
    rows->finish();
    QJsonArray array;
    for (TaskUtilisation &task : tasks) {
        Result<QList<UtilisationSample>> samples =
            read({"task_samples", "task_id", task.taskId, 0});
        if (!samples)
            return samples.error();
        task.samples = std::move(*samples);
        array.append(task.toJson());
    }
    return QJsonObject{{u"attempt"_s, *attempt}, {u"tasks"_s, array}};
}

Result<QJsonObject> UtilisationService::forWorker(const QString &workerId)
{
    bool ok = false;
    const qint64 id = workerId.toLongLong(&ok);
    Result<QSqlQuery> row =
        runSql(m_db, u"SELECT name, cpus, memory_mb, gpus FROM workers WHERE id = ?"_s, {id});
    if (!row)
        return row.error();
    if (!ok || !row->next()) {
        return Error::make(
            ErrorCode::NotFound,
            u"no worker %1; GET /v1/workers lists them with their ids"_s.arg(workerId),
            u"worker_id"_s);
    }
    WorkerUtilisation worker;
    worker.workerId = QString::number(id);
    worker.name = row->value(0).toString();
    worker.cpus = row->value(1).toInt();
    worker.memoryMb = row->value(2).toLongLong();
    worker.gpus = row->value(3).toInt();
    row->finish();
    Result<QList<UtilisationSample>> samples = read({"worker_samples", "worker_id", id, 0});
    if (!samples)
        return samples.error();
    worker.samples = std::move(*samples);
    return worker.toJson();
}

void UtilisationService::purgeOldSamples()
{
    (void)runSql(
        m_db, u"DELETE FROM worker_samples WHERE at < ?"_s, {nowMs() - m_limits.workerRetentionMs});
    (void)runSql(m_db,
                 u"DELETE FROM task_samples WHERE task_id IN (SELECT id FROM tasks WHERE "
                 u"finished_at > 0 AND finished_at < ?)"_s,
                 {nowMs() - m_limits.endedTaskRetentionMs});
}

} // namespace ddl::server
