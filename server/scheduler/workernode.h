#pragma once

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

namespace ddl::server {

// One worker as the scheduler sees it: what it declared, and what is still free of it.
struct WorkerNode
{
    qint64 id = 0;
    QString address;
    int totalGpus = 0;
    int totalCpus = 0;
    qint64 totalMemoryMb = 0;
    int totalSlots = 0;
    bool online = true;
    // Heartbeating, but its owner's policy lets no task run now (docs/owners.md): not online.
    bool ownerBusy = false;
    QString gpuType; // the worker's label (--gpu-type, else its GPUs' model); empty: none
    // How it runs tasks, as it announces them: "bubblewrap", "podman", and "cdi" when it gives
    // GPUs to containers (it wrote the CDI spec of its GPUs).
    QStringList runtimes;
    // Its trust (docs/trust.md), as the scheduler last read it from the store.
    int trust = 0;
    bool quarantined = false;    // gets no tasks
    bool awaitingCanary = false; // canaries are on and it has not passed one: canaries only

    QList<bool> gpuBusy; // by GPU index
    int freeCpus = 0;
    qint64 freeMemoryMb = 0;
    int freeSlots = 0;
    QSet<int> usedPorts;
    int nextPort = 0;

    int freeGpus() const { return int(gpuBusy.count(false)); }
    // Whether it runs tasks in containers of their job's image (--container-runtime podman).
    bool runsContainers() const { return runtimes.contains(QLatin1String("podman")); }
    bool givesContainersGpus() const { return runtimes.contains(QLatin1String("cdi")); }
};

// What one task asks of a worker.
struct TaskDemand
{
    qint64 taskId = 0;
    int gpus = 0;
    int cpus = 1;
    qint64 memoryMb = 0;
    int ports = 1;   // its own port and those of its portList, booked as one run
    QString gpuType; // the job's OpenPAI gpuType: only workers with this label (any case)
    // The job's image when only a container can run it (a ddl:// image, which no sandbox has):
    // only workers that run containers. Empty for a job without an image, or with a registry
    // image that a worker without podman runs in its sandbox (docs/images.md).
    QString containerImage;
    // The job's minWorkerTrust: only workers whose trust score is at least this.
    int minTrust = 0;
    // A canary job's: the one worker it checks (docs/trust.md); 0 for any other job.
    qint64 canaryFor = 0;

    bool acceptsWorker(const WorkerNode &node) const
    {
        if (node.quarantined)
            return false;
        if (canaryFor != 0)
            return node.id == canaryFor;
        if (node.awaitingCanary || node.trust < minTrust)
            return false;
        return (gpuType.isEmpty() || node.gpuType.compare(gpuType, Qt::CaseInsensitive) == 0)
               && (containerImage.isEmpty()
                   || (node.runsContainers() && (gpus == 0 || node.givesContainersGpus())));
    }
};

// Where a task goes: the worker, the GPUs it gets by index, the port it listens on (the first of
// its run of ports).
struct Placement
{
    qint64 taskId = 0;
    qint64 workerId = 0;
    QList<int> gpuIndices;
    int port = 0;
    int cpus = 0;
    qint64 memoryMb = 0;
    int portCount = 1;
};

} // namespace ddl::server
