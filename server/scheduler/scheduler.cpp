#include "scheduler.h"

#include "jobs/jobstate.h"
#include "openpaienvironment.h"
#include "store/sql.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSqlError>
#include <set>

Q_LOGGING_CATEGORY(lcScheduler, "ddl.server.scheduler")

namespace ddl::server {

Scheduler::Scheduler(const QSqlDatabase &db, QObject *parent)
    : QObject(parent)
    , m_db(db)
{
    m_passTimer.setSingleShot(true);
    connect(&m_passTimer, &QTimer::timeout, this, [this] {
        if (Result<int> placed = schedule(); !placed)
            qCWarning(lcScheduler).noquote() << "scheduling pass failed:" << placed.error().message;
    });
}

// The role of a spec by name.
static QJsonObject roleOf(const QJsonObject &spec, const QString &name)
{
    for (const QJsonValue &role : spec.value(QStringLiteral("taskRoles")).toArray()) {
        if (role.toObject().value(QStringLiteral("name")).toString() == name)
            return role.toObject();
    }
    return {};
}

static TaskDemand demandOf(qint64 taskId, const QJsonObject &spec, const QString &roleName)
{
    const QJsonObject role = roleOf(spec, roleName);
    return TaskDemand{taskId,
                      role.value(QStringLiteral("gpuNumber")).toInt(),
                      role.value(QStringLiteral("cpuNumber")).toInt(1),
                      role.value(QStringLiteral("memoryMB")).toInteger(),
                      openPaiPortCount(role),
                      spec.value(QStringLiteral("gpuType")).toString()};
}

static QString joinIndices(const QList<int> &indices)
{
    QStringList parts;
    for (const int index : indices)
        parts << QString::number(index);
    return parts.join(u',');
}

static QList<int> splitIndices(const QString &text)
{
    QList<int> indices;
    for (const QString &part : text.split(u',', Qt::SkipEmptyParts))
        indices << part.toInt();
    return indices;
}

Status Scheduler::load()
{
    Result<QSqlQuery> workers = runSql(m_db,
                                       QStringLiteral("SELECT id, address, gpus, cpus, memory_mb, "
                                                      "slots, state, gpu_type FROM workers"));
    if (!workers)
        return workers.error();
    while (workers->next()) {
        WorkerNode node;
        node.id = workers->value(0).toLongLong();
        node.address = workers->value(1).toString();
        node.totalGpus = workers->value(2).toInt();
        node.totalCpus = workers->value(3).toInt();
        node.totalMemoryMb = workers->value(4).toLongLong();
        node.totalSlots = workers->value(5).toInt();
        node.online = workers->value(6).toString() == QLatin1String("ONLINE");
        node.gpuType = workers->value(7).toString();
        m_placer.addWorker(node);
    }
    Result<QSqlQuery> running = runSql(
        m_db,
        QStringLiteral("SELECT t.id, t.job_id, j.user_id, t.worker_id, t.port, t.gpu_indices, "
                       "t.role, j.spec FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.state = "
                       "? AND t.worker_id IS NOT NULL"),
        {JobState::Running});
    if (!running)
        return running.error();
    while (running->next()) {
        const QJsonObject spec = QJsonDocument::fromJson(running->value(7).toByteArray()).object();
        const TaskDemand demand =
            demandOf(running->value(0).toLongLong(), spec, running->value(6).toString());
        Allocation allocation{Placement{demand.taskId,
                                        running->value(3).toLongLong(),
                                        splitIndices(running->value(5).toString()),
                                        running->value(4).toInt(), demand.cpus, demand.memoryMb,
                                        demand.ports},
                              running->value(1).toLongLong(), running->value(2).toLongLong()};
        m_placer.take(allocation.placement);
        account(allocation, +1);
        m_allocations.insert(demand.taskId, allocation);
    }
    Result<QSqlQuery> waiting = runSql(m_db, QStringLiteral("SELECT id FROM jobs WHERE state = ?"),
                                       {JobState::Waiting});
    if (!waiting)
        return waiting.error();
    QList<qint64> jobs;
    while (waiting->next())
        jobs << waiting->value(0).toLongLong();
    for (const qint64 jobId : std::as_const(jobs))
        enqueue(jobId);
    reloadLimits();
    qCInfo(lcScheduler) << "loaded" << m_placer.workers().size() << "workers,"
                        << m_allocations.size() << "running tasks," << m_queue.size()
                        << "waiting jobs";
    return Ok{};
}

void Scheduler::enqueue(qint64 jobId)
{
    Result<QSqlQuery> job = runSql(m_db,
                                   QStringLiteral("SELECT user_id, priority, spec, attempt, reason "
                                                  "FROM jobs WHERE id = ? AND state IN (?, ?)"),
                                   {jobId, JobState::Waiting, JobState::Running});
    if (!job || !job->next())
        return;
    QueuedJob queued;
    queued.jobId = jobId;
    queued.userId = job->value(0).toLongLong();
    queued.priority = job->value(1).toInt();
    queued.reason = job->value(4).toString();
    const QJsonObject spec = QJsonDocument::fromJson(job->value(2).toByteArray()).object();
    Result<QSqlQuery> tasks = runSql(m_db,
                                     QStringLiteral("SELECT id, role FROM tasks WHERE job_id = ? "
                                                    "AND attempt = ? AND state = ?"),
                                     {jobId, job->value(3), JobState::Waiting});
    while (tasks && tasks->next()) {
        queued.tasks << demandOf(tasks->value(0).toLongLong(), spec, tasks->value(1).toString());
        queued.gpus += queued.tasks.last().gpus;
    }
    if (queued.tasks.isEmpty())
        return;
    m_queue.insert(jobId, queued);
    requestPass();
}

void Scheduler::dequeue(qint64 jobId)
{
    m_queue.remove(jobId);
}

void Scheduler::account(const Allocation &allocation, int sign)
{
    Usage &usage = m_usage[allocation.userId];
    usage.gpus += sign * int(allocation.placement.gpuIndices.size());
    usage.tasks += sign;
    int &jobTasks = usage.jobs[allocation.jobId];
    jobTasks += sign;
    if (jobTasks <= 0)
        usage.jobs.remove(allocation.jobId);
}

void Scheduler::taskEnded(qint64 taskId)
{
    const auto it = m_allocations.find(taskId);
    if (it == m_allocations.end())
        return;
    m_placer.release(it->placement);
    account(*it, -1);
    m_allocations.erase(it);
    requestPass();
}

void Scheduler::workerSeen(const WorkerNode &declared)
{
    m_placer.updateWorker(declared);
    requestPass();
}

void Scheduler::workerLost(qint64 workerId)
{
    if (WorkerNode *node = m_placer.worker(workerId)) {
        WorkerNode offline = *node;
        offline.online = false;
        m_placer.updateWorker(offline);
    }
}

void Scheduler::reloadLimits()
{
    Result<QSqlQuery> limits = runSql(m_db,
                                      QStringLiteral("SELECT id, max_gpus, max_running_jobs FROM "
                                                     "users WHERE max_gpus IS NOT NULL OR "
                                                     "max_running_jobs IS NOT NULL"));
    if (!limits)
        return;
    m_limits.clear();
    while (limits->next()) {
        m_limits.insert(limits->value(0).toLongLong(),
                        UserLimits{limits->value(1).isNull() ? -1 : limits->value(1).toInt(),
                                   limits->value(2).isNull() ? -1 : limits->value(2).toInt()});
    }
}

void Scheduler::requestPass()
{
    if (!m_passTimer.isActive())
        m_passTimer.start(0);
}

QString Scheduler::limitReason(const QueuedJob &job) const
{
    const auto limits = m_limits.constFind(job.userId);
    if (limits == m_limits.cend())
        return {};
    const Usage usage = m_usage.value(job.userId);
    if (limits->maxGpus >= 0 && usage.gpus + job.gpus > limits->maxGpus) {
        return QStringLiteral("user limit of %1 GPUs reached (%2 in use, this job needs %3)")
            .arg(limits->maxGpus)
            .arg(usage.gpus)
            .arg(job.gpus);
    }
    if (limits->maxRunningJobs >= 0 && usage.jobs.size() >= limits->maxRunningJobs) {
        return limits->maxRunningJobs == 1 ? QStringLiteral("user limit of 1 running job reached")
                                           : QStringLiteral("user limit of %1 running jobs reached")
                                                 .arg(limits->maxRunningJobs);
    }
    return {};
}

Result<int> Scheduler::schedule()
{
    if (m_queue.isEmpty())
        return 0;
    // Each user's jobs by priority, then age; users take turns by priority of their next job,
    // then by what they run already (fair share), then by the age of that job.
    QHash<qint64, QList<QueuedJob *>> byUser;
    for (QueuedJob &job : m_queue)
        byUser[job.userId].append(&job);
    using Turn = std::tuple<int, int, int, qint64, qint64>; // -priority, gpus, tasks, job, user
    std::set<Turn> turns;
    QHash<qint64, int> next;
    const auto turnOf = [this](const QueuedJob *job) {
        const Usage &usage = m_usage[job->userId];
        return Turn{-job->priority, usage.gpus, usage.tasks, job->jobId, job->userId};
    };
    for (auto it = byUser.begin(); it != byUser.end(); ++it) {
        std::sort(it->begin(), it->end(), [](const QueuedJob *a, const QueuedJob *b) {
            return std::tie(b->priority, a->jobId) < std::tie(a->priority, b->jobId);
        });
        turns.insert(turnOf(it->first()));
    }

    QList<Allocation> placed;
    QList<std::pair<QueuedJob *, QString>> changedReasons;
    QList<qint64> placedJobs;
    GangPlacer::Summary cluster = m_placer.summary();
    bool clusterStale = false;
    int waitingAhead = 0;
    while (!turns.empty()) {
        const Turn turn = *turns.begin();
        turns.erase(turns.begin());
        const qint64 userId = std::get<4>(turn);
        QList<QueuedJob *> &jobs = byUser[userId];
        QueuedJob *job = jobs.at(next[userId]++);

        QString reason = limitReason(*job);
        if (reason.isEmpty()) {
            const QList<Placement> placements = m_placer.hasFreeSlot() ? m_placer.place(job->tasks)
                                                                        : QList<Placement>();
            if (!placements.isEmpty()) {
                for (const Placement &placement : placements) {
                    Allocation allocation{placement, job->jobId, job->userId};
                    account(allocation, +1);
                    m_allocations.insert(placement.taskId, allocation);
                    placed << allocation;
                }
                placedJobs << job->jobId;
                clusterStale = true;
            } else {
                if (clusterStale) {
                    cluster = m_placer.summary();
                    clusterStale = false;
                }
                // A gang with a GPU type is explained by the workers of that type alone.
                const QString gpuType = GangPlacer::gpuTypeOf(job->tasks);
                reason = GangPlacer::explain(
                    job->tasks, gpuType.isEmpty() ? cluster : m_placer.summary(gpuType));
            }
        }
        if (!reason.isEmpty()) {
            if (waitingAhead > 0) {
                reason += waitingAhead == 1
                              ? QStringLiteral("; behind 1 job in the queue")
                              : QStringLiteral("; behind %1 jobs in the queue").arg(waitingAhead);
            }
            ++waitingAhead;
            if (reason != job->reason)
                changedReasons.append({job, reason});
        }
        if (next[userId] < jobs.size())
            turns.insert(turnOf(jobs.at(next[userId])));
    }

    if (Status stored = persist(placed, placedJobs, changedReasons); !stored) {
        // The store refused: forget these placements so that the next pass tries again.
        for (const Allocation &allocation : std::as_const(placed)) {
            m_placer.release(allocation.placement);
            account(allocation, -1);
            m_allocations.remove(allocation.placement.taskId);
        }
        return stored.error();
    }
    // Only now that the store holds them are the new reasons the ones to compare against.
    for (const auto &[job, reason] : std::as_const(changedReasons))
        job->reason = reason;
    for (const qint64 jobId : std::as_const(placedJobs))
        m_queue.remove(jobId);
    if (!placed.isEmpty())
        qCInfo(lcScheduler) << "placed" << placed.size() << "tasks of" << placedJobs.size()
                            << "jobs;" << m_queue.size() << "jobs wait";
    return int(placed.size());
}

Status Scheduler::persist(const QList<Allocation> &placed, const QList<qint64> &placedJobs,
                          const QList<std::pair<QueuedJob *, QString>> &reasons)
{
    if (placed.isEmpty() && reasons.isEmpty())
        return Ok{};
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    const qint64 now = nowMs();
    // One prepared statement for every placement of the pass.
    QSqlQuery assign(m_db);
    if (!assign.prepare(QStringLiteral("UPDATE tasks SET state = ?, worker_id = ?, port = ?, "
                                       "gpu_indices = COALESCE(?, ''), leased_at = ?, delivered = 0 WHERE id = ? "
                                       "AND state = ?")))
        return Error::make(QStringLiteral("internal"), assign.lastError().text());
    for (const Allocation &allocation : placed) {
        const Placement &placement = allocation.placement;
        const QVariantList values{JobState::Running,   placement.workerId,
                                  placement.port,      joinIndices(placement.gpuIndices),
                                  now,                 placement.taskId,
                                  JobState::Waiting};
        for (int i = 0; i < values.size(); ++i)
            assign.bindValue(i, values.at(i));
        if (!assign.exec()) {
            return Error::make(QStringLiteral("internal"),
                               QStringLiteral("store error placing task %1: %2")
                                   .arg(placement.taskId)
                                   .arg(assign.lastError().text()));
        }
    }
    QList<std::pair<qint64, QString>> updates;
    for (const auto &[job, reason] : reasons)
        updates.append({job->jobId, reason});
    // A placed job waits only for its tasks to start; its old reason no longer holds.
    for (const qint64 jobId : placedJobs)
        updates.append({jobId, QStringLiteral("placed; starting on its workers")});
    for (const auto &[jobId, reason] : std::as_const(updates)) {
        if (Result<QSqlQuery> update = runSql(m_db,
                                              QStringLiteral("UPDATE jobs SET reason = ? WHERE id "
                                                             "= ? AND state = ?"),
                                              {reason, jobId, JobState::Waiting});
            !update)
            return update.error();
    }
    return transaction.commit();
}

namespace {

// "address:port" of a task of the attempt, with its role.
struct TaskHost
{
    QString role;
    QString hostPort;
};

} // namespace

// Every task of the attempt, in task order.
static QList<TaskHost> taskHosts(const QSqlDatabase &db, qint64 jobId, int attempt)
{
    QList<TaskHost> hosts;
    Result<QSqlQuery> query = runSql(db,
                                     QStringLiteral("SELECT t.role, t.port, w.address FROM tasks t "
                                                    "JOIN workers w ON w.id = t.worker_id WHERE "
                                                    "t.job_id = ? AND t.attempt = ? ORDER BY "
                                                    "t.task_index"),
                                     {jobId, attempt});
    while (query && query->next()) {
        hosts.append(
            {query->value(0).toString(),
             query->value(2).toString() + u':' + QString::number(query->value(1).toInt())});
    }
    return hosts;
}

// OpenPAI's environment for one task (its table of PAI_* variables), with the host lists of the
// whole gang: "address:port" of every task, by role number.
static QJsonObject paiEnvironment(const QList<TaskHost> &hosts,
                                  const QJsonObject &spec,
                                  const QString &userEmail,
                                  const QString &role,
                                  int roleIndex)
{
    const QJsonArray roles = spec.value(QStringLiteral("taskRoles")).toArray();
    const QJsonObject current = roleOf(spec, role);
    int totalTasks = 0;
    QStringList roleNames;
    for (const QJsonValue &value : roles) {
        totalTasks += value.toObject().value(QStringLiteral("taskNumber")).toInt();
        roleNames << value.toObject().value(QStringLiteral("name")).toString();
    }
    const QString cpus = QString::number(current.value(QStringLiteral("cpuNumber")).toInt());
    const QString memory = QString::number(current.value(QStringLiteral("memoryMB")).toInt());
    const QString gpus = QString::number(current.value(QStringLiteral("gpuNumber")).toInt());
    QJsonObject env{
        {QStringLiteral("PAI_JOB_NAME"), spec.value(QStringLiteral("jobName")).toString()},
        {QStringLiteral("PAI_USER_NAME"), userEmail},
        // The config's strings; the worker gives the task real folders and keeps these as
        // PAI_*_DIR_URI.
        {QStringLiteral("PAI_DATA_DIR"), spec.value(QStringLiteral("dataDir")).toString()},
        {QStringLiteral("PAI_OUTPUT_DIR"), spec.value(QStringLiteral("outputDir")).toString()},
        {QStringLiteral("PAI_CODE_DIR"), spec.value(QStringLiteral("codeDir")).toString()},
        {QStringLiteral("PAI_TASK_ROLE_NAME"), role},
        {QStringLiteral("PAI_TASK_ROLE_NO"), QString::number(roleNames.indexOf(role))},
        {QStringLiteral("PAI_TASK_ROLE_NUM"),
         QString::number(current.value(QStringLiteral("taskNumber")).toInt())},
        {QStringLiteral("PAI_TASK_ROLE_INDEX"), QString::number(roleIndex)},
        {QStringLiteral("PAI_TASKS_NUM"), QString::number(totalTasks)},
        {QStringLiteral("PAI_TASK_ROLES_NUM"), QString::number(roles.size())},
        {QStringLiteral("PAI_TASK_ROLE_LIST"), roleNames.join(u',')},
        {QStringLiteral("PAI_KILL_ALL_ON_COMPLETED_TASK_NUM"),
         QString::number(spec.value(QStringLiteral("killAllOnCompletedTaskNumber")).toInt())},
        {QStringLiteral("PAI_TASK_CPU_NUM"), cpus},
        {QStringLiteral("PAI_TASK_MEM_MB"), memory},
        {QStringLiteral("PAI_TASK_GPU_NUM"), gpus},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_CPU_COUNT"), cpus},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_MEM_MB"), memory},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_GPU_COUNT"), gpus},
    };
    QHash<QString, QStringList> lists;
    for (const TaskHost &host : hosts)
        lists[host.role] << host.hostPort;
    for (int i = 0; i < roleNames.size(); ++i) {
        env.insert(QStringLiteral("PAI_TASK_ROLE_%1_HOST_LIST").arg(i),
                   lists.value(roleNames[i]).join(u','));
    }
    return env;
}

// What main() of a DDL job's task is told of its peers: its rank, their number, and TF_CONFIG
// for TensorFlow's MultiWorkerMirroredStrategy (every task's "address:port" in task order).
static void addDdlEnvironment(QJsonObject &env, const QList<TaskHost> &hosts, int taskIndex)
{
    QJsonArray workers;
    for (const TaskHost &host : hosts)
        workers.append(host.hostPort);
    const QJsonObject tfConfig{
        {QStringLiteral("cluster"), QJsonObject{{QStringLiteral("worker"), workers}}},
        {QStringLiteral("task"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("worker")},
                     {QStringLiteral("index"), taskIndex}}}};
    env.insert(QStringLiteral("DDL_WORKER_INDEX"), QString::number(taskIndex));
    env.insert(QStringLiteral("DDL_WORKER_COUNT"), QString::number(hosts.size()));
    env.insert(QStringLiteral("TF_CONFIG"),
               QString::fromUtf8(QJsonDocument(tfConfig).toJson(QJsonDocument::Compact)));
}

// Where a task's output files go among the job's artifacts: the root for a job of one task,
// else a folder per task, "<role>-<index>/" ("worker-0/", "worker-1/"), so that none overwrites
// another's.
static QString outputPrefix(const QJsonObject &spec, const QString &role, int roleIndex)
{
    int totalTasks = 0;
    for (const QJsonValue &value : spec.value(QStringLiteral("taskRoles")).toArray())
        totalTasks += value.toObject().value(QStringLiteral("taskNumber")).toInt();
    return totalTasks > 1 ? QStringLiteral("%1-%2/").arg(role).arg(roleIndex) : QString();
}

Result<QJsonArray> Scheduler::lease(qint64 workerId)
{
    // A pass that is due runs first, so a worker asking right after a submit gets its work now.
    if (m_passTimer.isActive()) {
        m_passTimer.stop();
        if (Result<int> placed = schedule(); !placed)
            return placed.error();
    }
    Result<QSqlQuery> assigned = runSql(
        m_db,
        QStringLiteral("SELECT t.id, t.job_id, t.attempt, t.role, t.role_index, t.port, "
                       "t.gpu_indices, j.uuid, j.name, j.kind, j.spec, j.package_sha256, "
                       "j.dataset_sha256, u.email, w.address, j.dataset_manifest, "
                       "t.task_index FROM tasks t "
                       "JOIN jobs j ON j.id = "
                       "t.job_id JOIN users u ON u.id = j.user_id JOIN workers w ON w.id = "
                       "t.worker_id WHERE t.worker_id = ? AND t.state = ? AND t.delivered = 0 "
                       "ORDER BY t.id"),
        {workerId, JobState::Running});
    if (!assigned)
        return assigned.error();
    QList<QVariantList> rows;
    while (assigned->next()) {
        QVariantList row;
        for (int column = 0; column < 17; ++column)
            row << assigned->value(column);
        rows << row;
    }
    assigned->finish();
    QJsonArray leases;
    if (rows.isEmpty())
        return leases;
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    for (const QVariantList &row : std::as_const(rows)) {
        const qint64 taskId = row.at(0).toLongLong();
        const QJsonObject spec = QJsonDocument::fromJson(row.at(10).toByteArray()).object();
        const QString role = row.at(3).toString();
        const QJsonObject roleSpec = roleOf(spec, role);
        const QList<int> gpus = splitIndices(row.at(6).toString());
        const QList<TaskHost> hosts = taskHosts(m_db, row.at(1).toLongLong(), row.at(2).toInt());
        QJsonObject env =
            paiEnvironment(hosts, spec, row.at(13).toString(), role, row.at(4).toInt());
        if (row.at(9).toString() == QLatin1String("ddl"))
            addDdlEnvironment(env, hosts, row.at(16).toInt());
        env.insert(QStringLiteral("PAI_CURRENT_CONTAINER_IP"), row.at(14).toString());
        env.insert(QStringLiteral("PAI_CURRENT_CONTAINER_PORT"), QString::number(row.at(5).toInt()));
        addOpenPaiEnvironment(
            env, m_db, row.at(1).toLongLong(), row.at(2).toInt(), spec, role, row.at(5).toInt());
        QJsonArray gpuIndices;
        for (const int index : gpus)
            gpuIndices.append(index);
        leases.append(QJsonObject{
            {QStringLiteral("task_id"), taskId},
            {QStringLiteral("job_uuid"), row.at(7).toString()},
            {QStringLiteral("job_name"), row.at(8).toString()},
            {QStringLiteral("kind"), row.at(9).toString()},
            {QStringLiteral("attempt"), row.at(2).toInt()},
            {QStringLiteral("role"), role},
            {QStringLiteral("role_index"), row.at(4).toInt()},
            {QStringLiteral("command"), roleSpec.value(QStringLiteral("command")).toString()},
            {QStringLiteral("image"), spec.value(QStringLiteral("image")).toString()},
            {QStringLiteral("gpus"), int(gpus.size())},
            {QStringLiteral("gpu_indices"), gpuIndices},
            {QStringLiteral("cpus"), roleSpec.value(QStringLiteral("cpuNumber")).toInt()},
            {QStringLiteral("memory_mb"), roleSpec.value(QStringLiteral("memoryMB")).toInteger()},
            {QStringLiteral("port"), row.at(5).toInt()},
            {QStringLiteral("shm_mb"), roleSpec.value(QStringLiteral("shmMB")).toInt()},
            {QStringLiteral("package_sha256"),
             row.at(11).toString().isEmpty() ? QJsonValue() : QJsonValue(row.at(11).toString())},
            {QStringLiteral("dataset_sha256"),
             row.at(12).isNull() ? QJsonValue() : QJsonValue(row.at(12).toString())},
            {QStringLiteral("dataset_manifest"),
             row.at(15).isNull() ? QJsonValue() : QJsonValue(row.at(15).toString())},
            {QStringLiteral("env"), env},
            {QStringLiteral("output_prefix"), outputPrefix(spec, role, row.at(4).toInt())},
        });
        if (Result<QSqlQuery> delivered = runSql(m_db,
                                                 QStringLiteral("UPDATE tasks SET delivered = 1, "
                                                                "leased_at = ? WHERE id = ?"),
                                                 {nowMs(), taskId});
            !delivered)
            return delivered.error();
    }
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    return leases;
}

} // namespace ddl::server
