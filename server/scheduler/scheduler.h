#pragma once

#include "core/result.h"
#include "gangplacer.h"

#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QSqlDatabase>
#include <QTimer>

namespace ddl::server {

// A job waiting to be placed: the tasks of its current attempt and what orders it.
struct QueuedJob
{
    qint64 jobId = 0;
    qint64 userId = 0;
    int priority = 0;
    QList<TaskDemand> tasks;
    int gpus = 0;
    QString reason; // as last stored
    // Why the job waits again, kept before the placer's reasons (a preemption); empty: none.
    QString cause;
};

// Limits the server's admin set on a user; -1 means none.
struct UserLimits
{
    int maxGpus = -1;
    int maxRunningJobs = -1;
};

// Places whole jobs onto workers (gangs: all tasks of a job or none), in order of priority, then
// fair share (the user running least goes first), then age; respects per-user limits; keeps a
// reason on every job it cannot place. The cluster lives in memory (GangPlacer); placements are
// written to the store in one transaction per pass, and workers collect them as leases.
//
// Several servers on one PostgreSQL store: only the one that leads (Leadership) places and keeps
// the cluster in memory, rebuilt from the store when it begins to lead and when another server
// says it changed something (NOTIFY ddl_scheduler). The others only tell the leader; their leases
// come from the store.
class Scheduler : public QObject
{
    Q_OBJECT
public:
    explicit Scheduler(const QSqlDatabase &db, QObject *parent = nullptr);

    // Rebuilds the in-memory cluster and queue from the store (at start).
    Status load();
    // Whether other servers share the store; a shared scheduler follows only while it leads.
    void setShared(bool shared);
    // This server now leads (rebuild from the store and place) or no longer does (forget).
    void setLeading(bool leading);
    bool leading() const { return m_leading; }
    // Another server changed jobs, tasks or workers: rebuild before the next pass.
    void handleStoreChanged();
    // Why no registered worker could ever run these tasks, or empty (GangPlacer::neverPlaceable);
    // a server that does not lead asks the store's workers.
    QString neverPlaceable(const QList<TaskDemand> &tasks);
    // The job's current attempt has waiting tasks: queue it (submit, retry).
    // cause: why it waits again, shown before the placer's reason (JobProgress::taskPreempted).
    void enqueue(qint64 jobId, const QString &cause = {});
    void dequeue(qint64 jobId);
    void taskEnded(qint64 taskId);
    void workerSeen(const WorkerNode &declared);
    void workerLost(qint64 workerId);

    // One scheduling pass; returns how many tasks it placed.
    Result<int> schedule();
    // Runs a pass soon, once however many times it is asked before then.
    void requestPass();
    // The tasks placed on this worker that it has not collected yet, marked collected.
    Result<QJsonArray> lease(qint64 workerId);
    // The checkpoint limit leases carry (LeaseBuilder).
    void setCheckpointMaxBytes(qint64 bytes) { m_checkpointMaxBytes = bytes; }

    // With canaries on, a worker gets only its canary until it passed one (docs/trust.md).
    void setCanaries(bool on);

    int queuedJobs() const { return int(m_queue.size()); }
    const GangPlacer &placer() const { return m_placer; }

private:
    struct Allocation
    {
        Placement placement;
        qint64 jobId = 0;
        qint64 userId = 0;
    };
    struct Usage
    {
        int gpus = 0;
        int tasks = 0;
        QHash<qint64, int> jobs; // running tasks per job
    };
    void account(const Allocation &allocation, int sign);
    void forget();
    Status loadCluster();
    // A server that does not lead: tell the leader, which rebuilds (true), or nothing to do.
    bool passedToLeader();
    void reloadLimits();
    // Trust, quarantine and verification of the workers, from the store (docs/trust.md).
    void reloadTrust();
    QString limitReason(const QueuedJob &job) const;
    Status persist(const QList<Allocation> &placed, const QList<qint64> &placedJobs,
                   const QList<std::pair<QueuedJob *, QString>> &reasons);

    QSqlDatabase m_db;
    qint64 m_checkpointMaxBytes = 0;
    GangPlacer m_placer;
    QHash<qint64, QueuedJob> m_queue;
    QHash<qint64, Allocation> m_allocations; // by task id
    QHash<qint64, Usage> m_usage;            // by user id
    QHash<qint64, UserLimits> m_limits;      // by user id
    QTimer m_passTimer;
    bool m_leading = true;
    bool m_stale = false;
    bool m_canaries = false;
};

} // namespace ddl::server
