#include "scheduler.h"

#include "jobspec/jobspec.h"
#include "leasebuilder.h"
#include "openpaienvironment.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "wire/jobstate.h"
#include "workers/trustservice.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <set>

using namespace Qt::StringLiterals;

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

// The image, when only a container can run the job (JobSpec::needsContainer), else empty.
static QString containerImageOf(const QString &image)
{
    return JobSpec::needsContainer(image) ? image : QString();
}

// canaryFor: the worker a canary job checks (jobs.canary_worker_id), else 0.
static TaskDemand demandOf(qint64 taskId, const QJsonObject &spec, const QString &roleName,
                           qint64 canaryFor = 0)
{
    const QJsonObject role = roleNamed(spec, roleName);
    return TaskDemand{taskId,
                      role.value(u"gpuNumber"_s).toInt(),
                      role.value(u"cpuNumber"_s).toInt(1),
                      role.value(u"memoryMB"_s).toInteger(),
                      openPaiPortCount(role),
                      spec.value(u"gpuType"_s).toString(),
                      containerImageOf(spec.value(u"image"_s).toString()),
                      spec.value(u"minWorkerTrust"_s).toInt(0),
                      canaryFor};
}

// The runtimes column: "bubblewrap,podman".
static QStringList runtimesOf(const QString &stored)
{
    return stored.split(u',', Qt::SkipEmptyParts);
}

void Scheduler::forget()
{
    m_placer = GangPlacer();
    m_queue.clear();
    m_allocations.clear();
    m_usage.clear();
}

void Scheduler::setShared(bool shared)
{
    m_leading = !shared;
    forget();
}

void Scheduler::setLeading(bool leading)
{
    m_leading = leading;
    forget();
    m_stale = leading;
    if (leading)
        requestPass();
}

void Scheduler::handleStoreChanged()
{
    if (!m_leading)
        return;
    m_stale = true;
    requestPass();
}

bool Scheduler::passedToLeader()
{
    if (m_leading)
        return false;
    // Delivered to the leader's LISTEN when this server's transaction, if any, commits.
    if (Result<QSqlQuery> notified = runSql(m_db, u"NOTIFY ddl_scheduler"_s); !notified)
        qCWarning(lcScheduler).noquote() << notified.error().message;
    return true;
}

QString Scheduler::neverPlaceable(const QList<TaskDemand> &tasks)
{
    if (!m_leading) {
        forget();
        if (Status loaded = loadCluster(); !loaded)
            qCWarning(lcScheduler).noquote() << loaded.error().message;
    }
    return m_placer.neverPlaceable(tasks);
}

Status Scheduler::load()
{
    if (Status cluster = loadCluster(); !cluster)
        return cluster;
    Result<QSqlQuery> waiting = runSql(m_db,
                                       QStringLiteral("SELECT id FROM jobs WHERE state = ?"),
                                       {stateName(JobState::Waiting)});
    if (!waiting)
        return waiting.error();
    QList<qint64> jobs;
    while (waiting->next())
        jobs << waiting->value(u"id"_s).toLongLong();
    for (const qint64 jobId : std::as_const(jobs))
        enqueue(jobId);
    qCInfo(lcScheduler) << "loaded" << m_placer.workers().size() << "workers,"
                        << m_allocations.size() << "running tasks," << m_queue.size()
                        << "waiting jobs";
    return Ok{};
}

// The workers and what runs on them.
Status Scheduler::loadCluster()
{
    Result<QSqlQuery> workers = runSql(m_db,
                                       u"SELECT id, address, gpus, cpus, memory_mb, slots, state, "
                                       "gpu_type, runtimes FROM workers"_s);
    if (!workers)
        return workers.error();
    while (workers->next()) {
        const QSqlQuery &row = *workers;
        WorkerNode node;
        node.id = row.value(u"id"_s).toLongLong();
        node.address = row.value(u"address"_s).toString();
        node.totalGpus = row.value(u"gpus"_s).toInt();
        node.totalCpus = row.value(u"cpus"_s).toInt();
        node.totalMemoryMb = row.value(u"memory_mb"_s).toLongLong();
        node.totalSlots = row.value(u"slots"_s).toInt();
        node.online = row.value(u"state"_s).toString() == "ONLINE"_L1;
        node.ownerBusy = row.value(u"state"_s).toString() == "OWNER_BUSY"_L1;
        node.gpuType = row.value(u"gpu_type"_s).toString();
        node.runtimes = runtimesOf(row.value(u"runtimes"_s).toString());
        m_placer.addWorker(node);
    }
    workers->finish();
    reloadTrust();
    Result<QSqlQuery> running = runSql(
        m_db,
        u"SELECT t.id, t.job_id, j.user_id, t.worker_id, t.port, t.gpu_indices, t.role, j.spec "
        "FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.state = ? AND t.worker_id IS NOT "
        "NULL"_s,
        {stateName(JobState::Running)});
    if (!running)
        return running.error();
    while (running->next()) {
        const QSqlQuery &row = *running;
        const QJsonObject spec =
            QJsonDocument::fromJson(row.value(u"spec"_s).toByteArray()).object();
        const TaskDemand demand =
            demandOf(row.value(u"id"_s).toLongLong(), spec, row.value(u"role"_s).toString());
        Allocation allocation{Placement{demand.taskId,
                                        row.value(u"worker_id"_s).toLongLong(),
                                        parseGpuIndices(row.value(u"gpu_indices"_s).toString()),
                                        row.value(u"port"_s).toInt(), demand.cpus, demand.memoryMb,
                                        demand.ports},
                              row.value(u"job_id"_s).toLongLong(),
                              row.value(u"user_id"_s).toLongLong()};
        m_placer.take(allocation.placement);
        account(allocation, +1);
        m_allocations.insert(demand.taskId, allocation);
    }
    return Ok{};
}

void Scheduler::enqueue(qint64 jobId, const QString &cause)
{
    if (passedToLeader())
        return;
    Result<QSqlQuery> job =
        runSql(m_db,
               QStringLiteral("SELECT user_id, priority, spec, attempt, reason, canary_worker_id "
                              "FROM jobs WHERE id = ? AND state IN (?, ?)"),
               {jobId, stateName(JobState::Waiting), stateName(JobState::Running)});
    if (!job || !job->next())
        return;
    QueuedJob queued;
    queued.jobId = jobId;
    queued.userId = job->value(u"user_id"_s).toLongLong();
    queued.priority = job->value(u"priority"_s).toInt();
    queued.reason = job->value(u"reason"_s).toString();
    queued.cause = cause;
    const QJsonObject spec = QJsonDocument::fromJson(job->value(u"spec"_s).toByteArray()).object();
    Result<QSqlQuery> tasks =
        runSql(m_db,
               QStringLiteral("SELECT id, role FROM tasks WHERE job_id = ? "
                              "AND attempt = ? AND state = ? ORDER BY id"),
               {jobId, job->value(u"attempt"_s), stateName(JobState::Waiting)});
    while (tasks && tasks->next()) {
        queued.tasks << demandOf(tasks->value(u"id"_s).toLongLong(), spec,
                                 tasks->value(u"role"_s).toString(),
                                 job->value(u"canary_worker_id"_s).toLongLong());
        queued.gpus += queued.tasks.last().gpus;
    }
    if (queued.tasks.isEmpty())
        return;
    m_queue.insert(jobId, queued);
    requestPass();
}

void Scheduler::dequeue(qint64 jobId)
{
    if (passedToLeader())
        return;
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
    if (passedToLeader())
        return;
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
    if (passedToLeader())
        return;
    m_placer.updateWorker(declared);
    requestPass();
}

void Scheduler::workerLost(qint64 workerId)
{
    if (passedToLeader())
        return;
    if (WorkerNode *node = m_placer.worker(workerId)) {
        WorkerNode offline = *node;
        offline.online = false;
        offline.ownerBusy = false;
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
        const QVariant maxGpus = limits->value(u"max_gpus"_s);
        const QVariant maxRunningJobs = limits->value(u"max_running_jobs"_s);
        m_limits.insert(limits->value(u"id"_s).toLongLong(),
                        UserLimits{maxGpus.isNull() ? -1 : maxGpus.toInt(),
                                   maxRunningJobs.isNull() ? -1 : maxRunningJobs.toInt()});
    }
}

void Scheduler::setCanaries(bool on)
{
    m_canaries = on;
}

void Scheduler::reloadTrust()
{
    Result<QSqlQuery> rows = runSql(m_db, u"SELECT "_s + TrustService::Columns + u" FROM workers"_s);
    if (!rows) {
        qCWarning(lcScheduler).noquote() << rows.error().message;
        return;
    }
    while (rows->next()) {
        const WorkerTrust trust = TrustService::trustOf(*rows);
        if (WorkerNode *node = m_placer.worker(trust.workerId)) {
            node->trust = trust.score;
            node->quarantined = trust.quarantined;
            node->awaitingCanary = m_canaries && !trust.verified;
        }
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
    if (!m_leading)
        return 0;
    if (m_stale) {
        forget();
        if (Status loaded = load(); !loaded)
            return loaded.error();
        m_stale = false;
    }
    if (m_queue.isEmpty())
        return 0;
    // Limits change from `ddl-server user limits` in another process: read at every pass, a job
    // submitted after the change meets them.
    reloadLimits();
    // So do quarantines (`ddl-server workers`), and trust moves with canaries and heartbeats.
    reloadTrust();
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
                // A gang with a GPU type or a ddl:// image is explained by the workers that
                // could take it alone.
                const TaskDemand needs = GangPlacer::needsOf(job->tasks);
                reason = GangPlacer::explain(job->tasks, GangPlacer::anyWorkerFits(needs)
                                                             ? cluster
                                                             : m_placer.summary(needs));
            }
        }
        if (!reason.isEmpty()) {
            if (!job->cause.isEmpty())
                reason = job->cause + QStringLiteral(": ") + reason;
            if (waitingAhead > 0) {
                reason += waitingAhead == 1
                              ? QStringLiteral("; behind 1 job in the queue")
                              : QStringLiteral("; behind %1 jobs in the queue").arg(waitingAhead);
            }
            // A canary waits for its one worker only: no user's job is behind it.
            if (job->tasks.isEmpty() || job->tasks.first().canaryFor == 0)
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
    JobStore store(m_db);
    for (const Allocation &allocation : placed) {
        const Placement &placement = allocation.placement;
        const Result<bool> stored = store.placeTask(
            {placement.taskId, placement.workerId, placement.port, placement.gpuIndices});
        if (!stored)
            return stored.error();
    }
    QList<std::pair<qint64, QString>> updates;
    for (const auto &[job, reason] : reasons)
        updates.append({job->jobId, reason});
    // A placed job waits only for its tasks to start; its old reason no longer holds.
    for (const qint64 jobId : placedJobs)
        updates.append({jobId, QStringLiteral("placed; starting on its workers")});
    for (const auto &[jobId, reason] : std::as_const(updates)) {
        if (Status stored = store.setWaitingReason(jobId, reason); !stored)
            return stored;
    }
    return transaction.commit();
}

Result<QJsonArray> Scheduler::lease(qint64 workerId)
{
    // A pass that is due runs first, so a worker asking right after a submit gets its work now.
    if (m_passTimer.isActive()) {
        m_passTimer.stop();
        if (Result<int> placed = schedule(); !placed)
            return placed.error();
    }
    Result<QList<TaskLease>> leases = LeaseBuilder(m_db, m_checkpointMaxBytes).undelivered(workerId);
    if (!leases)
        return leases.error();
    QJsonArray answer;
    if (leases->isEmpty())
        return answer;
    JobStore store(m_db);
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    for (const TaskLease &lease : std::as_const(*leases)) {
        answer.append(lease.toJson());
        if (Status delivered = store.markDelivered(lease.taskId); !delivered)
            return delivered.error();
    }
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    return answer;
}

} // namespace ddl::server
