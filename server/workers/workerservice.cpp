#include "workerservice.h"

#include "auth/secrettoken.h"
#include "blobs/uploadservice.h"
#include "core/sha256.h"
#include "scheduler/scheduler.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "trustservice.h"
#include "wire/jobstate.h"

#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSet>

#include <optional>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcWorkers, "ddl.server.workers")

namespace ddl::server {

// A task the server leased moments ago may not be in the worker's heartbeat yet.
static constexpr qint64 LeaseGraceMs = 15000;

WorkerService::WorkerService(const QSqlDatabase &db, UploadService &uploads, JobProgress &progress,
                             Scheduler &scheduler)
    : m_db(db)
    , m_uploads(uploads)
    , m_progress(progress)
    , m_scheduler(scheduler)
{}

// What a worker declared, as the scheduler needs it.
static WorkerNode declaredNode(qint64 id, const QString &address, const QJsonObject &resources)
{
    WorkerNode node;
    node.id = id;
    node.address = address;
    node.totalCpus = int(resources.value(QStringLiteral("cpus")).toInteger());
    node.totalMemoryMb = resources.value(QStringLiteral("memory_mb")).toInteger();
    node.totalGpus = int(resources.value(QStringLiteral("gpus")).toInteger());
    node.totalSlots = int(resources.value(QStringLiteral("slots")).toInteger());
    node.gpuType = resources.value(QStringLiteral("gpu_type")).toString();
    for (const QJsonValue &runtime : resources.value(u"runtimes"_s).toArray())
        node.runtimes << runtime.toString();
    node.online = true;
    return node;
}

Result<QString> WorkerService::createEnrollToken(std::optional<qint64> ownerId)
{
    const QString token = SecretToken::generate(QStringLiteral("ddle_"));
    Result<QSqlQuery> insert = runSql(m_db,
                                      QStringLiteral("INSERT INTO enroll_tokens (token_hash, "
                                                     "created_at, owner_id) VALUES (?, ?, ?)"),
                                      {SecretToken::hashOf(token), nowMs(),
                                       ownerId ? QVariant(*ownerId) : QVariant()});
    if (!insert)
        return insert.error();
    return token;
}

static Error badField(const QString &field, const QString &what)
{
    return Error::make(ErrorCode::BadRequest, field + QStringLiteral(": ") + what, field);
}

// A worker's --advertise-address goes into host lists as "address:port": a host name or IP
// address, nothing a list separator or shell could misread.
static bool isValidAddress(const QString &address)
{
    // Anchored whole: "^...$" would also take an address that ends in a newline.
    static const QRegularExpression pattern(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9][A-Za-z0-9.:-]{0,252}")));
    return pattern.match(address).hasMatch();
}

// A GPU type is a label that users name in a job's gpuType and read back in the worker list:
// printable, one line, short.
static bool isValidGpuType(const QString &gpuType)
{
    static const QRegularExpression pattern(
        QRegularExpression::anchoredPattern(QStringLiteral("[^\\p{C}]{0,100}")));
    return pattern.match(gpuType).hasMatch();
}

// The label as stored: "" (never NULL) for a worker that announces none.
static QString gpuTypeOf(const QJsonValue &value)
{
    const QString gpuType = value.toString();
    return gpuType.isNull() ? QStringLiteral("") : gpuType;
}

static Error badGpuType()
{
    return badField(QStringLiteral("gpu_type"),
                    QStringLiteral("must be at most 100 printable characters on one line"));
}

// The runtimes a worker announces ("bubblewrap", "podman"), as stored: "bubblewrap,podman".
// Names the server does not know are kept (a newer worker's); nullopt when malformed.
static std::optional<QString> runtimesOf(const QJsonValue &value)
{
    static const QRegularExpression name(
        QRegularExpression::anchoredPattern(u"[a-z0-9][a-z0-9-]{0,31}"_s));
    const QJsonArray runtimes = value.toArray();
    if (!value.isArray() || runtimes.size() > 8)
        return std::nullopt;
    QStringList names;
    for (const QJsonValue &runtime : runtimes) {
        if (!name.match(runtime.toString()).hasMatch())
            return std::nullopt;
        names << runtime.toString();
    }
    // None (--no-sandbox, no podman) is stored as '', not as NULL: the column is NOT NULL.
    return names.isEmpty() ? u""_s : names.join(u',');
}

static Error badRuntimes()
{
    return badField(u"runtimes"_s,
                    u"must be a list of at most 8 names of lower-case letters, digits and -, "
                    "such as [\"bubblewrap\", \"podman\"]"_s);
}

Result<QJsonObject> WorkerService::enroll(const QJsonObject &request, const QString &peerAddress)
{
    Result<QSqlQuery> token = runSql(m_db,
                                     QStringLiteral("SELECT owner_id FROM enroll_tokens WHERE "
                                                    "token_hash = ?"),
                                     {SecretToken::hashOf(
                                         request.value(QStringLiteral("enroll_token")).toString())});
    if (!token)
        return token.error();
    if (!token->next()) {
        return Error::make(ErrorCode::Unauthorized,
                           QStringLiteral("the enrollment token is not valid; make one with "
                                          "ddl-server token create"),
                           QStringLiteral("enroll_token"));
    }
    // The worker's owner (for its contribution ledger) is the user its token was made for.
    const QVariant ownerId = token->value(u"owner_id"_s);
    token->finish();
    const QString name = request.value(QStringLiteral("name")).toString();
    if (name.isEmpty() || name.size() > 200)
        return badField(QStringLiteral("name"), QStringLiteral("must be 1 to 200 characters"));
    for (const char *field : {"cpus", "memory_mb", "gpus", "slots"}) {
        if (request.value(QLatin1String(field)).toInteger(-1) < 0)
            return badField(QLatin1String(field), QStringLiteral("must be an integer >= 0"));
    }
    QString address = request.value(QStringLiteral("address")).toString();
    if (address.isEmpty())
        address = peerAddress;
    else if (!isValidAddress(address))
        return badField(QStringLiteral("address"),
                        QStringLiteral("must be a host name or IP address"));
    const QString gpuType = gpuTypeOf(request.value(QStringLiteral("gpu_type")));
    if (!isValidGpuType(gpuType))
        return badGpuType();
    // A worker from before runtimes were announced sends none: it runs no containers.
    const std::optional<QString> runtimes = request.contains(u"runtimes"_s)
                                                ? runtimesOf(request.value(u"runtimes"_s))
                                                : QString(u""_s);
    if (!runtimes)
        return badRuntimes();
    const QString workerToken = SecretToken::generate(QStringLiteral("ddlw_"));
    const qint64 now = nowMs();
    const Result<qint64> id = insertReturningId(
        m_db,
        QStringLiteral(
            "INSERT INTO workers (name, hostname, address, token_hash, cpus, memory_mb, "
            "gpus, slots, gpu_type, runtimes, state, last_seen, created_at, owner_id) VALUES (?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?, 'ONLINE', ?, ?, ?)"),
        {name,
         // Never NULL (the column is NOT NULL): a worker that sends none has "".
         request.value(QStringLiteral("hostname")).toString(QStringLiteral("")),
         address,
         SecretToken::hashOf(workerToken),
         request.value(QStringLiteral("cpus")).toInteger(),
         request.value(QStringLiteral("memory_mb")).toInteger(),
         request.value(QStringLiteral("gpus")).toInteger(),
         request.value(QStringLiteral("slots")).toInteger(),
         gpuType,
         *runtimes,
         now,
         now,
         ownerId});
    if (!id)
        return id.error();
    qCInfo(lcWorkers) << "worker" << *id << name << "enrolled from" << address;
    m_scheduler.workerSeen(declaredNode(*id, address, request));
    return QJsonObject{{QStringLiteral("worker_id"), *id},
                       {QStringLiteral("worker_token"), workerToken}};
}

Result<WorkerRef> WorkerService::authenticate(const QString &workerToken)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT id, name FROM workers WHERE token_hash "
                                                    "= ?"),
                                     {SecretToken::hashOf(workerToken)});
    if (!query)
        return query.error();
    if (!query->next()) {
        return Error::make(ErrorCode::Unauthorized,
                           QStringLiteral("unknown worker token; enroll the worker again"));
    }
    return WorkerRef{query->value(u"id"_s).toLongLong(), query->value(u"name"_s).toString()};
}

Result<QJsonObject> WorkerService::heartbeat(const WorkerRef &worker, const QJsonObject &request)
{
    const qint64 now = nowMs();
    QSet<qint64> reported;
    for (const QJsonValue &id : request.value(QStringLiteral("running")).toArray())
        reported.insert(id.toInteger());
    QVariantList update{now};
    QString resources;
    for (const char *field : {"cpus", "memory_mb", "gpus", "slots"}) {
        if (request.contains(QLatin1String(field))) {
            resources += QStringLiteral(", %1 = ?").arg(QLatin1String(field));
            update << request.value(QLatin1String(field)).toInteger();
        }
    }
    update << worker.id;
    Result<QSqlQuery> before =
        runSql(m_db,
               u"SELECT state, address, cpus, memory_mb, gpus, slots, gpu_type, runtimes FROM "
               "workers WHERE id = ?"_s,
               {worker.id});
    if (!before || !before->next())
        return before ? Error::make(ErrorCode::Unauthorized, QStringLiteral("unknown worker"))
                      : before.error();
    const QString storedRuntimes = before->value(u"runtimes"_s).toString();
    QJsonObject declared{{u"cpus"_s, before->value(u"cpus"_s).toLongLong()},
                         {u"memory_mb"_s, before->value(u"memory_mb"_s).toLongLong()},
                         {u"gpus"_s, before->value(u"gpus"_s).toLongLong()},
                         {u"slots"_s, before->value(u"slots"_s).toLongLong()},
                         {u"gpu_type"_s, before->value(u"gpu_type"_s).toString()},
                         {u"runtimes"_s, QJsonArray::fromStringList(
                                             storedRuntimes.split(u',', Qt::SkipEmptyParts))}};
    // A worker whose owner's policy lets no task run now (docs/owners.md) says why; the
    // scheduler places nothing there until it says nothing again.
    const bool ownerBusy = !request.value(u"owner_busy"_s).toString().isEmpty();
    const QString workerState = ownerBusy ? u"OWNER_BUSY"_s : u"ONLINE"_s;
    bool changed = before->value(u"state"_s).toString() != workerState;
    for (const char *field : {"cpus", "memory_mb", "gpus", "slots"}) {
        const QString key = QLatin1String(field);
        if (request.contains(key) && request.value(key).toInteger() != declared.value(key).toInteger()) {
            declared.insert(key, request.value(key).toInteger());
            changed = true;
        }
    }
    // A new --gpu-type (or other GPUs) of a worker that kept its enrollment.
    if (const QJsonValue gpuType = request.value(QStringLiteral("gpu_type"));
        gpuType.isString() && gpuType.toString() != declared.value(QStringLiteral("gpu_type"))) {
        if (!isValidGpuType(gpuType.toString()))
            return badGpuType();
        declared.insert(QStringLiteral("gpu_type"), gpuType);
        resources += QStringLiteral(", gpu_type = ?");
        update.insert(update.size() - 1, gpuTypeOf(gpuType));
        changed = true;
    }
    // A worker restarted with (or without) --container-runtime podman.
    if (request.contains(u"runtimes"_s)) {
        const std::optional<QString> runtimes = runtimesOf(request.value(u"runtimes"_s));
        if (!runtimes)
            return badRuntimes();
        if (*runtimes != storedRuntimes) {
            declared.insert(u"runtimes"_s, request.value(u"runtimes"_s));
            resources += u", runtimes = ?"_s;
            update.insert(update.size() - 1, *runtimes);
            changed = true;
        }
    }
    // --advertise-address of a worker that kept its enrollment (it does not enroll again).
    QString address = before->value(u"address"_s).toString();
    const QString advertised = request.value(QStringLiteral("address")).toString();
    if (!advertised.isEmpty() && advertised != address) {
        if (!isValidAddress(advertised))
            return badField(QStringLiteral("address"),
                            QStringLiteral("must be a host name or IP address"));
        address = advertised;
        resources += QStringLiteral(", address = ?");
        update.insert(update.size() - 1, address);
        changed = true;
    }
    before->finish();
    // Before last_seen moves: the time since the last heartbeat is uptime.
    if (Status counted = TrustService(m_db).recordHeartbeat(worker.id, now); !counted)
        return counted.error();
    if (Result<QSqlQuery> touched = runSql(m_db,
                                           QStringLiteral("UPDATE workers SET state = ?, "
                                                          "last_seen = ?")
                                               + resources + QStringLiteral(" WHERE id = ?"),
                                           QVariantList{workerState} + update);
        !touched)
        return touched.error();
    // A worker back from silence, or with other resources, is news for the scheduler.
    if (changed) {
        WorkerNode node = declaredNode(worker.id, address, declared);
        node.online = !ownerBusy;
        node.ownerBusy = ownerBusy;
        m_scheduler.workerSeen(node);
    }

    // Tasks this worker holds: ones to cancel, and ones it no longer runs (it restarted).
    Result<QSqlQuery> held = runSql(m_db,
                                    QStringLiteral("SELECT id, cancel_requested, leased_at FROM "
                                                   "tasks WHERE worker_id = ? AND state = ?"),
                                    {worker.id, stateName(JobState::Running)});
    if (!held)
        return held.error();
    QJsonArray cancel;
    QList<qint64> vanished;
    QSet<qint64> known;
    while (held->next()) {
        const qint64 id = held->value(u"id"_s).toLongLong();
        known.insert(id);
        if (held->value(u"cancel_requested"_s).toBool() && reported.contains(id))
            cancel.append(id);
        else if (!reported.contains(id)
                 && held->value(u"leased_at"_s).toLongLong() < now - LeaseGraceMs)
            vanished << id;
    }
    held->finish();
    // Whatever it runs that is not leased to it (a stale lease) must stop too.
    for (const qint64 id : std::as_const(reported)) {
        if (!known.contains(id))
            cancel.append(id);
    }
    for (const qint64 id : std::as_const(vanished)) {
        qCWarning(lcWorkers) << "worker" << worker.id << "no longer runs task" << id;
        (void) m_progress.taskEnded(id, {JobState::Failed, std::nullopt,
                                         QStringLiteral("the worker lost the task (it restarted)"),
                                         true});
    }
    return QJsonObject{{QStringLiteral("cancel"), cancel}};
}

Status WorkerService::checkLease(const WorkerRef &worker, qint64 taskId)
{
    Result<QSqlQuery> query =
        runSql(m_db,
               QStringLiteral("SELECT 1 FROM tasks WHERE id = ? AND worker_id "
                              "= ? AND state = ?"),
               {taskId, worker.id, stateName(JobState::Running)});
    if (!query)
        return query.error();
    if (!query->next()) {
        return Error::make(
            ErrorCode::Conflict,
            QStringLiteral("task %1 is not leased to this worker any more; stop it").arg(taskId),
            QStringLiteral("task_id"));
    }
    return Ok{};
}

Status WorkerService::markOwnerBusy(qint64 workerId)
{
    Result<QSqlQuery> row = runSql(m_db,
                                   u"SELECT state, address, cpus, memory_mb, gpus, slots, gpu_type, "
                                   "runtimes FROM workers WHERE id = ?"_s,
                                   {workerId});
    if (!row)
        return row.error();
    if (!row->next() || row->value(u"state"_s).toString() != "ONLINE"_L1)
        return Ok{};
    const QJsonObject declared{
        {u"cpus"_s, row->value(u"cpus"_s).toLongLong()},
        {u"memory_mb"_s, row->value(u"memory_mb"_s).toLongLong()},
        {u"gpus"_s, row->value(u"gpus"_s).toLongLong()},
        {u"slots"_s, row->value(u"slots"_s).toLongLong()},
        {u"gpu_type"_s, row->value(u"gpu_type"_s).toString()},
        {u"runtimes"_s, QJsonArray::fromStringList(
                            row->value(u"runtimes"_s).toString().split(u',', Qt::SkipEmptyParts))}};
    const QString address = row->value(u"address"_s).toString();
    row->finish();
    if (Result<QSqlQuery> marked = runSql(
            m_db, u"UPDATE workers SET state = 'OWNER_BUSY' WHERE id = ? AND state = 'ONLINE'"_s,
            {workerId});
        !marked)
        return marked.error();
    WorkerNode node = declaredNode(workerId, address, declared);
    node.online = false;
    node.ownerBusy = true;
    m_scheduler.workerSeen(node);
    return Ok{};
}

Status WorkerService::reportState(const WorkerRef &worker, qint64 taskId, const QJsonObject &request)
{
    if (Status leased = checkLease(worker, taskId); !leased)
        return leased;
    const Result<JobState> state = parseJobState(request.value(QStringLiteral("state")).toString());
    if (state && *state == JobState::Running)
        return m_progress.taskStarted(taskId);
    if (!state || !isFinal(*state)) {
        return badField(QStringLiteral("state"),
                        QStringLiteral("must be RUNNING, SUCCEEDED, FAILED or STOPPED"));
    }
    TaskEnd outcome{*state, std::nullopt, request.value(QStringLiteral("message")).toString()};
    if (request.value(QStringLiteral("exit_code")).isDouble())
        outcome.exitCode = request.value(QStringLiteral("exit_code")).toInt();
    // Its worker's owner took the machine back: no failure, the job waits for a worker again.
    if (*state == JobState::Stopped && request.value(u"preempted"_s).toBool()) {
        QString why = outcome.message.trimmed().left(MaxEventChars);
        if (why.isEmpty())
            why = u"preempted on worker %1: its owner needs the machine"_s.arg(worker.name);
        if (Status marked = markOwnerBusy(worker.id); !marked)
            return marked;
        return m_progress.taskPreempted(taskId, why);
    }
    if (*state == JobState::Stopped) {
        // A task nobody asked to stop did not end well: count it as failed.
        const Result<TaskRow> asked = JobStore(m_db).task(taskId);
        if (asked && !asked->cancelRequested) {
            outcome.state = JobState::Failed;
            if (outcome.message.isEmpty())
                outcome.message = QStringLiteral("stopped on the worker");
        }
    }
    return m_progress.taskEnded(taskId, outcome);
}

static bool isSafeRelativePath(const QString &path)
{
    if (path.isEmpty() || path.size() > 1024 || path.startsWith(u'/') || path.contains(u'\\')
        || path.contains(QChar(0)))
        return false;
    for (const QStringView part : QStringView(path).split(u'/')) {
        if (part.isEmpty() || part == u"." || part == u"..")
            return false;
    }
    return true;
}

Status WorkerService::recordArtifacts(const WorkerRef &worker, qint64 taskId,
                                      const QJsonObject &request)
{
    if (Status leased = checkLease(worker, taskId); !leased)
        return leased;
    const QString owner = UploadService::workerOwner(worker.id);
    const QJsonArray files = request.value(QStringLiteral("files")).toArray();
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    for (int i = 0; i < files.size(); ++i) {
        const QJsonObject file = files.at(i).toObject();
        const QString path = file.value(QStringLiteral("path")).toString();
        const QString sha256 = file.value(QStringLiteral("sha256")).toString();
        const QString field = QStringLiteral("files[%1]").arg(i);
        if (!isSafeRelativePath(path))
            return badField(field + QStringLiteral(".path"),
                            QStringLiteral("must be a relative path without . or .. parts"));
        if (!isSha256Hex(sha256) || !m_uploads.ownsBlob(owner, sha256))
            return badField(field + QStringLiteral(".sha256"),
                            QStringLiteral("names no blob this worker uploaded"));
        // The size users see and downloads are cut by is the stored blob's, never a claim.
        Result<QSqlQuery> blob = runSql(m_db, QStringLiteral("SELECT size FROM blobs WHERE sha256 = ?"),
                                        {sha256});
        if (!blob)
            return blob.error();
        const qint64 size = blob->next() ? blob->value(u"size"_s).toLongLong() : -1;
        if (file.contains(QStringLiteral("size"))
            && file.value(QStringLiteral("size")).toInteger(-2) != size)
            return badField(field + QStringLiteral(".size"),
                            QStringLiteral("is not the size of the uploaded blob (%1)").arg(size));
        Result<QSqlQuery> insert = runSql(
            m_db,
            QStringLiteral("INSERT INTO artifacts (job_id, path, size, sha256) SELECT "
                           "job_id, ?, ?, ? FROM tasks WHERE id = ? ON CONFLICT (job_id, path) "
                           "DO UPDATE SET size = excluded.size, sha256 = excluded.sha256"),
            {path, size, sha256, taskId});
        if (!insert)
            return insert.error();
    }
    return transaction.commit();
}

Status WorkerService::recordEvent(const WorkerRef &worker, qint64 taskId,
                                  const QJsonObject &request)
{
    if (Status leased = checkLease(worker, taskId); !leased)
        return leased;
    static const QRegularExpression line(
        QRegularExpression::anchoredPattern(u"[^\\p{C}]{1,%1}"_s.arg(MaxEventChars)));
    const QString message = request.value(u"message"_s).toString();
    if (!line.match(message).hasMatch()) {
        return badField(u"message"_s,
                        u"must be 1 to %1 printable characters on one line"_s.arg(MaxEventChars));
    }
    Result<QSqlQuery> count = runSql(m_db,
                                     u"SELECT COUNT(*) AS events FROM job_events WHERE task_id = ?"_s,
                                     {taskId});
    if (!count)
        return count.error();
    if (count->next() && count->value(u"events"_s).toInt() >= MaxEventsPerTask) {
        return Error::make(ErrorCode::RateLimited,
                           u"task %1 has %2 events already, the most a task may have"_s.arg(taskId)
                               .arg(MaxEventsPerTask));
    }
    count->finish();
    Result<QSqlQuery> insert = runSql(m_db,
                                      u"INSERT INTO job_events (job_id, task_id, at, message) "
                                      "SELECT job_id, id, ?, ? FROM tasks WHERE id = ?"_s,
                                      {nowMs(), message, taskId});
    if (!insert)
        return insert.error();
    // A backend's reason for not starting the task yet (Slurm's pending reason) is the job's
    // reason while it waits; once it runs, the reason stays as it was.
    if (request.value(u"waiting_reason"_s).toBool()) {
        const Result<TaskRow> task = JobStore(m_db).task(taskId);
        if (!task)
            return task.error();
        return JobStore(m_db).setWaitingReason(task->jobId, message);
    }
    return Ok{};
}

bool WorkerService::mayRead(const WorkerRef &worker, const QString &sha256)
{
    Result<QSqlQuery> query = runSql(
        m_db,
        QStringLiteral("SELECT 1 FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.worker_id = ? "
                       "AND t.state = ? AND (j.package_sha256 = ? OR j.dataset_sha256 = ? OR "
                       "j.dataset_manifest = ? OR j.image_manifest = ? OR EXISTS (SELECT 1 FROM "
                       "manifest_files m WHERE m.manifest_sha256 IN (j.dataset_manifest, "
                       "j.image_manifest) AND m.sha256 = ?) OR EXISTS (SELECT 1 FROM checkpoints "
                       "c WHERE c.job_id = j.id AND (c.manifest_sha256 = ? OR EXISTS (SELECT 1 "
                       "FROM manifest_files cm WHERE cm.manifest_sha256 = c.manifest_sha256 AND "
                       "cm.sha256 = ?)))) LIMIT 1"),
        {worker.id, stateName(JobState::Running), sha256, sha256, sha256, sha256, sha256, sha256,
         sha256});
    return query && query->next();
}

Result<QJsonObject> WorkerService::list()
{
    Result<QSqlQuery> query = runSql(
        m_db,
        QStringLiteral("SELECT w.id, w.name, w.hostname, w.state, w.cpus, w.memory_mb, w.gpus, w.slots, "
                       "w.last_seen, (SELECT COUNT(*) FROM tasks t WHERE t.worker_id = w.id AND "
                       "t.state = ?) AS running_tasks, (SELECT COALESCE(SUM(CASE WHEN "
                       "t.gpu_indices = '' THEN 0 ELSE LENGTH(t.gpu_indices) - "
                       "LENGTH(REPLACE(t.gpu_indices, ',', '')) + 1 END), 0) FROM tasks t WHERE "
                       "t.worker_id = w.id AND t.state = ?) AS gpus_in_use, w.gpu_type, w.runtimes, ")
            + TrustService::scoreColumns(u"w"_s)
            + QStringLiteral(" FROM workers w ORDER BY w.name, w.id"),
        {stateName(JobState::Running), stateName(JobState::Running)});
    if (!query)
        return query.error();
    QJsonArray workers;
    while (query->next()) {
        const QSqlQuery &row = *query;
        QJsonObject worker{
            {u"id"_s, QString::number(row.value(u"id"_s).toLongLong())},
            {u"name"_s, row.value(u"name"_s).toString()},
            {u"hostname"_s, row.value(u"hostname"_s).toString()},
            {u"state"_s, row.value(u"state"_s).toString()},
            {u"cpus"_s, row.value(u"cpus"_s).toInt()},
            {u"memory_mb"_s, row.value(u"memory_mb"_s).toLongLong()},
            {u"gpus"_s, row.value(u"gpus"_s).toInt()},
            {u"slots"_s, row.value(u"slots"_s).toInt()},
            {u"last_seen"_s, isoTime(row.value(u"last_seen"_s).toLongLong())},
            {u"running_tasks"_s, row.value(u"running_tasks"_s).toInt()},
            {u"gpus_in_use"_s, row.value(u"gpus_in_use"_s).toInt()},
            {u"gpu_type"_s, row.value(u"gpu_type"_s).toString()},
            {u"runtimes"_s, QJsonArray::fromStringList(row.value(u"runtimes"_s).toString().split(
                                u',', Qt::SkipEmptyParts))},
        };
        // Its trust score and state (docs/trust.md).
        const QJsonObject trust = TrustService::trustOf(row).toJson();
        for (auto it = trust.begin(); it != trust.end(); ++it)
            worker.insert(it.key(), it.value());
        workers.append(worker);
    }
    return QJsonObject{{QStringLiteral("workers"), workers}};
}

void WorkerService::markLostWorkers(qint64 timeoutMs)
{
    Result<QSqlQuery> lost = runSql(m_db,
                                    QStringLiteral("SELECT id, name FROM workers WHERE state IN "
                                                   "('ONLINE', 'OWNER_BUSY') AND last_seen < ?"),
                                    {nowMs() - timeoutMs});
    if (!lost)
        return;
    QList<qint64> workers;
    while (lost->next()) {
        qCWarning(lcWorkers) << "worker" << lost->value(u"name"_s).toString()
                             << "missed its heartbeats; marking it lost";
        workers << lost->value(u"id"_s).toLongLong();
    }
    lost->finish();
    for (const qint64 workerId : std::as_const(workers)) {
        // Only if it is still silent: a heartbeat may have reached another server meanwhile.
        Result<QSqlQuery> marked = runSql(m_db,
                                          QStringLiteral("UPDATE workers SET state = 'LOST' WHERE "
                                                         "id = ? AND state IN ('ONLINE', "
                                                         "'OWNER_BUSY') AND last_seen < ?"),
                                          {workerId, nowMs() - timeoutMs});
        if (!marked || marked->numRowsAffected() <= 0)
            continue;
        (void) TrustService(m_db).recordLoss(workerId);
        m_scheduler.workerLost(workerId);
        Result<QSqlQuery> tasks = runSql(m_db,
                                         QStringLiteral("SELECT id FROM tasks WHERE worker_id = ? "
                                                        "AND state = ?"),
                                         {workerId, stateName(JobState::Running)});
        QList<qint64> ids;
        while (tasks && tasks->next())
            ids << tasks->value(u"id"_s).toLongLong();
        for (const qint64 id : std::as_const(ids)) {
            (void) m_progress.taskEnded(id, {JobState::Failed, std::nullopt,
                                             QStringLiteral("its worker stopped answering"),
                                             true});
        }
    }
}

} // namespace ddl::server
