#include "jobservice.h"

#include "blobs/uploadservice.h"
#include "core/sha256.h"
#include "datasets/datasetservice.h"
#include "images/imageservice.h"
#include "jobs/jobcheckpoints.h"
#include "jobspec/jobspecparser.h"
#include "scheduler/openpaienvironment.h"
#include "scheduler/scheduler.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "wire/jobmessage.h"
#include "wire/jobstate.h"
#include "workers/trustservice.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

namespace ddl::server {

using namespace Qt::StringLiterals;

constexpr qsizetype MaxConfigChars = 1024 * 1024;

static constexpr QLatin1String DatasetScheme("ddl://");

static Error jobNotFound(const QString &uuidOrName)
{
    return Error::make(ErrorCode::NotFound,
                       QStringLiteral("no job %1; check its uuid or name with ddlcli list")
                           .arg(uuidOrName.left(100)),
                       QStringLiteral("job_uuid"));
}

// What each task of the spec asks of a worker, as the scheduler counts it.
static QList<TaskDemand> demandsOf(const JobSpec &spec)
{
    QList<TaskDemand> demands;
    const QString containerImage = JobSpec::needsContainer(spec.image) ? spec.image : QString();
    for (const TaskRole &role : spec.taskRoles) {
        for (int i = 0; i < role.taskNumber; ++i)
            demands.append(TaskDemand{0, role.gpuNumber, role.cpuNumber, role.memoryMB, 1,
                                      spec.gpuType, containerImage, spec.minWorkerTrust});
    }
    return demands;
}

JobService::JobService(const QSqlDatabase &db, UploadService &uploads, DatasetService &datasets,
                       ImageService &images, Scheduler &scheduler)
    : m_db(db)
    , m_uploads(uploads)
    , m_datasets(datasets)
    , m_images(images)
    , m_scheduler(scheduler)
{}

// Reads {"sha256": ...} naming a blob the user must own; an absent or null member is allowed
// only when optional.
static Result<QString> blobMember(const QJsonObject &request, const QString &name, bool optional,
                                  UploadService &uploads, qint64 userId)
{
    const QJsonValue value = request.value(name);
    if (value.isUndefined() || value.isNull()) {
        if (optional)
            return QString();
        return Error::make(
            ErrorCode::BadRequest,
            QStringLiteral("%1 is required: upload the code package first").arg(name),
            name);
    }
    const QString sha256 = value.toObject().value(QStringLiteral("sha256")).toString();
    if (!isSha256Hex(sha256)) {
        return Error::make(
            ErrorCode::BadRequest,
            QStringLiteral("%1.sha256 must be 64 lowercase hex characters").arg(name),
            name + QStringLiteral(".sha256"));
    }
    if (!uploads.ownsBlob(UploadService::userOwner(userId), sha256)) {
        return Error::make(
            ErrorCode::BadRequest,
            QStringLiteral("%1.sha256 names no blob you uploaded; upload it first").arg(name),
            name + QStringLiteral(".sha256"));
    }
    return sha256;
}

// The job's spec: the normalised "spec", or "config", an OpenPAI job config as its user wrote
// it (v1 JSON with comments, or protocol v2 YAML), read here as ddlcli reads it.
static Result<JobSpec> specOf(const QJsonObject &request)
{
    const QJsonValue config = request.value(u"config"_s);
    if (config.isUndefined())
        return JobSpecParser::parseWire(request.value(u"spec"_s).toObject());
    if (request.contains(u"spec"_s))
        return Error::make(
            ErrorCode::BadRequest, u"send either spec or config, not both"_s, u"config"_s);
    if (!config.isString() || config.toString().size() > MaxConfigChars)
        return Error::make(ErrorCode::BadRequest,
                           u"config must be the text of an OpenPAI job config (v1 JSON or v2 "
                           "YAML) of at most %1 characters"_s.arg(MaxConfigChars),
                           u"config"_s);
    return JobSpecParser::parsePaiConfig(config.toString().toUtf8());
}

Result<QJsonObject> JobService::submit(qint64 userId, const QJsonObject &request)
{
    static const QStringList fields{QStringLiteral("spec"),
                                    QStringLiteral("config"),
                                    QStringLiteral("package"),
                                    QStringLiteral("dataset"),
                                    QStringLiteral("priority"),
                                    QStringLiteral("allow_unschedulable")};
    for (auto it = request.begin(); it != request.end(); ++it) {
        if (!fields.contains(it.key())) {
            return Error::make(
                ErrorCode::BadRequest,
                QStringLiteral("unknown field %1; a submission has spec (or config), "
                               "package, dataset, priority and allow_unschedulable")
                    .arg(it.key().left(100)),
                it.key().left(100));
        }
    }
    const QJsonValue allowValue = request.value(QStringLiteral("allow_unschedulable"));
    if (!allowValue.isUndefined() && !allowValue.isBool()) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("allow_unschedulable must be true or false"),
                           QStringLiteral("allow_unschedulable"));
    }
    const QJsonValue priorityValue = request.value(QStringLiteral("priority"));
    const int priority = priorityValue.toInt(0);
    if (!priorityValue.isUndefined() && (!priorityValue.isDouble() || priority != priorityValue.toDouble()
                                         || priority < -100 || priority > 100)) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("priority must be a whole number from -100 to 100"),
                           QStringLiteral("priority"));
    }
    Result<JobSpec> spec = specOf(request);
    if (!spec)
        return spec.error();
    // Refused now rather than left waiting forever (unless the user expects a bigger worker, or one
    // of its GPU type).
    if (!allowValue.toBool(false)) {
        if (const QString never = m_scheduler.neverPlaceable(demandsOf(*spec)); !never.isEmpty()) {
            return Error::make(ErrorCode::Unschedulable,
                               QStringLiteral("job %1 %2, so no registered worker can ever run it; "
                                              "change it to fit the workers, or submit it anyway "
                                              "with --allow-unschedulable to wait for a worker "
                                              "that can")
                                   .arg(spec->jobName, never),
                               QStringLiteral("allow_unschedulable"));
        }
    }
    const bool isDdl = spec->kind == JobSpec::Kind::Ddl;
    Result<QString> package = blobMember(request, QStringLiteral("package"), !isDdl, m_uploads,
                                         userId);
    if (!package)
        return package.error();
    // A dataset is a manifest ({"manifest": sha} or {"name": n}); {"sha256": ...} names a
    // dataset packed as one tar.zst blob, as clients before manifests sent it.
    QJsonObject datasetObject = request.value(QStringLiteral("dataset")).toObject();
    // An OpenPAI dataDir "ddl://NAME" names one of the user's datasets: it is laid out as the
    // task's PAI_DATA_DIR.
    const QJsonValue datasetValue = request.value(QStringLiteral("dataset"));
    if ((datasetValue.isUndefined() || datasetValue.isNull()) &&
        spec->dataDir.startsWith(DatasetScheme))
        datasetObject = {{QStringLiteral("name"), spec->dataDir.mid(DatasetScheme.size())}};
    QString manifest;
    if (datasetObject.contains(QStringLiteral("manifest"))
        || datasetObject.contains(QStringLiteral("name"))) {
        Result<QString> checked = m_datasets.manifestForJob(userId, datasetObject);
        if (!checked)
            return checked.error();
        manifest = *checked;
    }
    Result<QString> dataset = manifest.isEmpty()
                                  ? blobMember(request, QStringLiteral("dataset"), true, m_uploads,
                                               userId)
                                  : Result<QString>(QString());
    if (!dataset)
        return dataset.error();
    // A ddl:// image is the user's: its layers are what the job's workers may fetch.
    QString imageManifest;
    if (JobSpec::needsContainer(spec->image)) {
        Result<QString> image = m_images.manifestForJob(userId, spec->image);
        if (!image)
            return image.error();
        imageManifest = *image;
    }
    const QString commit = request.value(QStringLiteral("package"))
                               .toObject()
                               .value(QStringLiteral("commit"))
                               .toString();

    const QString uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    // As in OpenPAI, a name is one live job's: jobs are addressed by it as well as by uuid.
    Result<QSqlQuery> live =
        runSql(m_db,
               QStringLiteral("SELECT uuid, state FROM jobs WHERE user_id = ? "
                              "AND name = ? AND state IN (?, ?) LIMIT 1"),
               {userId, spec->jobName, stateName(JobState::Waiting), stateName(JobState::Running)});
    if (!live)
        return live.error();
    if (live->next()) {
        return Error::make(
            ErrorCode::NameInUse,
            QStringLiteral("you already have a %1 job named %2 (%3); choose another "
                           "jobName, or cancel that job first with ddlcli cancel "
                           "--job_uuid=%2")
                .arg(live->value(u"state"_s).toString(), spec->jobName,
                     live->value(u"uuid"_s).toString()),
            QStringLiteral("jobName"));
    }
    live->finish();
    NewJob job{userId,
               uuid,
               spec->jobName,
               JobSpec::kindName(spec->kind),
               spec->toJson(),
               *package,
               commit,
               *dataset,
               manifest,
               spec->retryCount,
               priority,
               QStringLiteral("waiting for the scheduler"),
               {},
               imageManifest};
    for (const TaskRole &role : spec->taskRoles)
        job.roles.append({role.name, role.taskNumber});
    const Result<qint64> jobId = JobStore(m_db).addJob(job);
    if (!jobId)
        return jobId.error();
    // The 201 goes out only after this commit: an accepted job survives a crash.
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    m_scheduler.enqueue(*jobId);
    return render(*jobId, true);
}

Result<QJsonObject> JobService::list(qint64 userId, const JobListQuery &query)
{
    const QString filter = query.whereSql();
    const QVariantList binds = QVariantList{userId} + query.whereValues();
    Result<QSqlQuery> count = runSql(m_db,
                                     QStringLiteral("SELECT COUNT(*) AS total FROM jobs WHERE user_id = ?")
                                         + filter,
                                     binds);
    if (!count)
        return count.error();
    const qint64 total = count->next() ? count->value(u"total"_s).toLongLong() : 0;
    Result<QSqlQuery> rows = runSql(m_db,
                                    QStringLiteral("SELECT id FROM jobs WHERE user_id = ?") + filter
                                        + query.orderSql() + QStringLiteral(" LIMIT ? OFFSET ?"),
                                    binds + QVariantList{query.limit, query.offset});
    if (!rows)
        return rows.error();
    QJsonArray jobs;
    while (rows->next()) {
        Result<QJsonObject> job = render(rows->value(u"id"_s).toLongLong(), false);
        if (!job)
            return job;
        jobs.append(*job);
    }
    return QJsonObject{{QStringLiteral("jobs"), jobs}, {QStringLiteral("total"), total}};
}

Result<JobRef> JobService::find(qint64 userId, const QString &uuidOrName)
{
    // A uuid first; else the name: the live job of that name, or the newest that had it.
    Result<QSqlQuery> query =
        runSql(m_db,
               QStringLiteral("SELECT id, uuid, state FROM jobs WHERE user_id "
                              "= ? AND (uuid = ? OR name = ?) ORDER BY uuid "
                              "= ? DESC, id DESC LIMIT 1"),
               {userId, uuidOrName, uuidOrName, uuidOrName});
    if (!query)
        return query.error();
    if (!query->next())
        return jobNotFound(uuidOrName);
    return JobRef{query->value(u"id"_s).toLongLong(), userId, query->value(u"uuid"_s).toString(),
                  query->value(u"state"_s).toString()};
}

Result<QJsonObject> JobService::get(qint64 userId, const QString &uuid)
{
    Result<JobRef> job = find(userId, uuid);
    if (!job)
        return job.error();
    return render(job->id, true);
}

Result<QJsonObject> JobService::cancel(qint64 userId, const QString &uuid)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    Result<JobRef> job = find(userId, uuid);
    if (!job)
        return job.error();
    if (isFinalState(job->state)) {
        return Error::make(ErrorCode::Conflict,
                           QStringLiteral("job %1 already ended as %2; nothing to cancel")
                               .arg(job->uuid, job->state));
    }
    // Waiting tasks stop at once; running ones are told to stop at their worker's next heartbeat.
    JobStore store(m_db);
    if (Status stopped = store.stopTasks(job->id); !stopped)
        return stopped.error();
    if (Status stopped = store.moveJob(job->id, JobState::Stopped, u"stopped by its owner"_s);
        !stopped)
        return stopped.error();
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    m_scheduler.dequeue(job->id);
    return render(job->id, true);
}

static QDateTime storeTime(const QVariant &ms)
{
    return ms.toLongLong() > 0 ? QDateTime::fromMSecsSinceEpoch(ms.toLongLong(), Qt::UTC)
                               : QDateTime();
}

Result<QJsonObject> JobService::render(qint64 jobId, bool withTasks)
{
    Result<QSqlQuery> query = runSql(
        m_db,
        QStringLiteral("SELECT uuid, name, kind, state, spec, commit_id, attempt, retry_count, "
                       "preemptions, reason, created_at, started_at, finished_at, package_sha256, "
                       "dataset_sha256, priority, dataset_manifest FROM jobs WHERE id = ?"),
        {jobId});
    if (!query)
        return query.error();
    if (!query->next())
        return Error::make(ErrorCode::NotFound, QStringLiteral("the job disappeared"));
    const QSqlQuery &row = *query;
    JobMessage job;
    const Result<JobState> state = parseJobState(row.value(u"state"_s).toString());
    if (!state)
        return state.error();
    job.state = *state;
    job.uuid = row.value(u"uuid"_s).toString();
    job.name = row.value(u"name"_s).toString();
    job.kind = row.value(u"kind"_s).toString();
    job.spec = QJsonDocument::fromJson(row.value(u"spec"_s).toByteArray()).object();
    job.commit = row.value(u"commit_id"_s).toString();
    job.attempt = row.value(u"attempt"_s).toInt();
    job.retryCount = row.value(u"retry_count"_s).toInt();
    job.preemptions = row.value(u"preemptions"_s).toInt();
    job.reason = row.value(u"reason"_s).toString();
    job.createdAt = storeTime(row.value(u"created_at"_s));
    job.startedAt = storeTime(row.value(u"started_at"_s));
    job.finishedAt = storeTime(row.value(u"finished_at"_s));
    job.packageSha256 = row.value(u"package_sha256"_s).toString();
    job.datasetSha256 = row.value(u"dataset_sha256"_s).toString();
    job.priority = row.value(u"priority"_s).toInt();
    job.datasetManifest = row.value(u"dataset_manifest"_s).toString();
    if (!withTasks)
        return job.toJson();
    job.detailed = true;
    // What the spec asked for that this server keeps but does not act on, said once, as of the
    // submission.
    if (const Result<JobSpec> spec = JobSpecParser::parseWire(job.spec)) {
        for (const QString &note : spec->noEffectNotes())
            job.events.append(
                QJsonObject{{u"at"_s, wireTime(job.createdAt)}, {u"message"_s, note}});
    }
    // What the job's workers told of their tasks' preparation, in the order they told it.
    Result<QSqlQuery> events = runSql(m_db,
                                      u"SELECT task_id, at, message FROM job_events WHERE job_id "
                                      "= ? ORDER BY id"_s,
                                      {jobId});
    if (!events)
        return events.error();
    while (events->next()) {
        job.events.append(QJsonObject{{u"at"_s, wireTime(storeTime(events->value(u"at"_s)))},
                                      {u"task_id"_s, events->value(u"task_id"_s).toLongLong()},
                                      {u"message"_s, events->value(u"message"_s).toString()}});
    }
    events->finish();
    Result<QSqlQuery> tasks = runSql(
        m_db,
        QStringLiteral("SELECT t.id, t.task_index, t.role, t.role_index, t.state, t.exit_code, "
                       "w.name AS worker, w.address, t.port, t.gpu_indices, t.attempt, "
                       "t.started_at, t.finished_at, t.message, w.id AS worker_id, ")
            + TrustService::scoreColumns(u"w"_s)
            + QStringLiteral(" FROM tasks t LEFT JOIN workers w ON w.id = t.worker_id WHERE "
                             "t.job_id = ? ORDER BY t.attempt, t.task_index"),
        {jobId});
    if (!tasks)
        return tasks.error();
    while (tasks->next()) {
        const QSqlQuery &row = *tasks;
        TaskMessage task;
        const Result<JobState> taskState = parseJobState(row.value(u"state"_s).toString());
        if (!taskState)
            return taskState.error();
        task.state = *taskState;
        task.id = row.value(u"id"_s).toLongLong();
        task.index = row.value(u"task_index"_s).toInt();
        task.role = row.value(u"role"_s).toString();
        task.roleIndex = row.value(u"role_index"_s).toInt();
        if (!row.value(u"exit_code"_s).isNull())
            task.exitCode = row.value(u"exit_code"_s).toInt();
        task.worker = row.value(u"worker"_s).toString();
        task.address = row.value(u"address"_s).toString();
        // The trust of the worker that ran (or runs) it, as of now (docs/trust.md).
        if (!row.value(u"worker_id"_s).isNull())
            task.workerTrust = TrustService::trustOf(row).score;
        task.port = row.value(u"port"_s).toInt();
        if (task.port > 0) {
            for (const auto &[label, ports] :
                 labelledPorts(roleNamed(job.spec, task.role), task.port)) {
                for (const QString &port : ports)
                    task.ports[label].append(port.toInt());
            }
        }
        for (const QString &gpu :
             row.value(u"gpu_indices"_s).toString().split(u',', Qt::SkipEmptyParts))
            task.gpus.append(gpu.toInt());
        task.attempt = row.value(u"attempt"_s).toInt();
        task.startedAt = storeTime(row.value(u"started_at"_s));
        task.finishedAt = storeTime(row.value(u"finished_at"_s));
        task.message = row.value(u"message"_s).toString();
        job.tasks.append(task);
    }
    QJsonObject detail = job.toJson();
    // Where each task's next attempt would start from (docs/checkpoints.md).
    Result<QJsonArray> checkpoints = JobCheckpoints(m_db).forJob(jobId);
    if (!checkpoints)
        return checkpoints.error();
    detail.insert(u"checkpoints"_s, *checkpoints);
    return detail;
}

} // namespace ddl::server
