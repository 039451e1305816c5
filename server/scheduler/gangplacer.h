#pragma once

#include "workernode.h"

#include <QHash>
#include <map>
#include <tuple>

namespace ddl::server {

// Places all tasks of a job at once, or none of them (a gang), onto online workers by GPUs,
// CPUs, memory and slots, and only onto workers of the job's GPU type when it names one: largest
// task first, each onto the worker whose free GPUs fit it most tightly, so that big holes stay for
// big tasks. Workers are indexed by what they have free, so a placement looks at a few workers, not
// all of them.
class GangPlacer
{
public:
    static constexpr int FirstPort = 20000;
    static constexpr int PortCount = 10000;

    void addWorker(const WorkerNode &node);
    void removeWorker(qint64 workerId);
    // Replaces the declared capacity of a worker, keeping what its tasks use.
    void updateWorker(const WorkerNode &declared);
    WorkerNode *worker(qint64 workerId);
    const QHash<qint64, WorkerNode> &workers() const { return m_workers; }

    // All placements, or an empty list when the whole gang does not fit now.
    QList<Placement> place(const QList<TaskDemand> &tasks);
    // Takes resources for a placement made earlier (e.g. tasks running when the server starts).
    void take(const Placement &placement);
    void release(const Placement &placement);

    // The largest workers, total and free, for explaining why a gang waits.
    struct Summary
    {
        int online = 0;
        int ownerBusy = 0; // workers it would count but for their owners' policy
        int quarantined = 0;    // online workers it does not count: quarantined
        int awaitingCanary = 0; // and those that wait for their canary check
        int mostTrust = 0;      // the highest trust of the online workers that take tasks
        int largestGpus = 0, largestFreeGpus = 0, largestCpus = 0, largestFreeCpus = 0;
        qint64 largestMemory = 0, largestFreeMemory = 0;
        int freeSlots = 0;
        QList<int> freeGpus; // per worker with a free slot, most first
    };
    // Counts only the workers that needs accepts (its GPU type and container image, see
    // TaskDemand::acceptsWorker).
    Summary summary(const TaskDemand &needs = {}) const;
    bool hasFreeSlot() const { return !m_free.empty(); }
    // Why a gang does not fit now, in words a user can act on: every resource that is short
    // (task slots, GPUs, CPUs, memory), each with what is free. For a gang with a GPU type,
    // cluster is the summary of the workers of that type; for a gang with a ddl:// image, of the
    // workers that run containers ("needs a worker with a container runtime (podman) for image
    // ddl://x; none is online ...").
    static QString explain(const QList<TaskDemand> &tasks, const Summary &cluster);
    // Why no registered worker could ever hold the gang, even with all of them idle and online
    // ("needs 4 GPUs on one worker; the largest worker has 2 GPUs"); empty when they could, and
    // when no worker that takes tasks (slots > 0) is registered at all (workers may come later).
    // A gang with a GPU type counts only the workers of that type ("needs GPU type V100; no
    // registered worker has it"); one with a ddl:// image only the workers that run containers.
    QString neverPlaceable(const QList<TaskDemand> &tasks) const;
    // The kind of worker the gang asks for: its GPU type and container image, and with an image
    // the most GPUs a task wants in it (gpus), nothing else.
    static TaskDemand needsOf(const QList<TaskDemand> &tasks);
    // Whether the gang may go to any worker with room (no GPU type, no container image).
    static bool anyWorkerFits(const TaskDemand &needs);

private:
    // "GPU type V100", "podman", "GPU type V100 and podman", "podman with GPUs (CDI)".
    static QString kindOfWorker(const TaskDemand &needs);
    static QString explainUntyped(const QList<TaskDemand> &tasks, const Summary &cluster);
    // neverPlaceable() on a placer holding only idle workers that the gang may use.
    QString neverPlaceableUntyped(const QList<TaskDemand> &tasks) const;
    // The part of a reason for resources that one task needs more of than the largest worker
    // has; empty when the largest worker is big enough.
    static QString exceedsLargest(const QList<TaskDemand> &tasks, const Summary &cluster);
    using Key = std::tuple<int, int, qint64, qint64>; // free GPUs, CPUs, memory, id
    static Key keyOf(const WorkerNode &node);
    void index(const WorkerNode &node);
    void unindex(const WorkerNode &node);
    Placement takeOn(WorkerNode &node, const TaskDemand &task);
    // Takes (or gives back) what a placement holds on its worker.
    void book(const Placement &placement, bool taken);
    // The first of count free ports in a row, or 0 when there is no such run.
    static int allocatePorts(WorkerNode &node, int count);

    QHash<qint64, WorkerNode> m_workers;
    std::map<Key, qint64> m_free; // online workers with a free slot, by what they have free
};

} // namespace ddl::server
