#pragma once

#include "agent/cpucorepool.h"
#include "agent/hostinfo.h"
#include "agent/workeridentity.h"
#include "config/workerconfig.h"
#include "container/podmanruntime.h"
#include "core/result.h"
#include "sandbox/sandbox.h"
#include "wire/tasklease.h"

#include <QMap>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <optional>

namespace ddl {
class ApiClient;
class ApiRequest;
} // namespace ddl

namespace ddl::worker {

class BlobCache;
class ImageLoader;
class OwnerPolicy;
class SlurmBackend;
class SampleReporter;
class TaskDiskWatch;
class UsageSampler;
class TaskRunner;
class VenvManager;

// The worker daemon. It enrolls with the server (or reuses WORK_DIR/worker.json, enrolling again
// when the server answers 401), heartbeats every 2 s with its resources and running tasks
// (ending those the answer cancels), leases tasks every 250 ms while it has free slots, and runs
// each through a TaskRunner with the GPUs and CPU cores it assigns. Everything is asynchronous: no nested event
// loops.
class WorkerAgent : public QObject
{
    Q_OBJECT
public:
    explicit WorkerAgent(const WorkerConfig &config, QObject *parent = nullptr);
    ~WorkerAgent() override;

    // Checks that tasks can be sandboxed (unless the config says --no-sandbox), prepares the
    // work folder, detects the machine's resources and begins enrolling. Fails (with a message
    // to show) when the worker cannot run at all.
    Status start();
    // Ends every task's process tree at once; the worker is about to exit.
    void shutdown();
    // Applies the owner's part of a config read again while running (hours, idle rules, lent
    // GPUs, preemption notice; docs/owners.md), or refuses it, keeping the running settings.
    Status applyOwnerSettings(const WorkerConfig &fresh);

    const HostResources &resources() const { return m_resources; }
    int slotCount() const { return m_slots; }
    QString workerId() const { return m_identity ? m_identity->workerId : QString(); }
    QList<qint64> taskIds() const { return m_tasks.keys(); }
    // The CPU cores tasks are pinned to and how many running tasks hold each.
    const CpuCorePool &cpuCores() const { return m_cpuCores; }
    QString identityPath() const;

signals:
    void enrolled(const QString &workerId);
    void taskStarted(qint64 taskId);
    void taskFinished(qint64 taskId, const QString &state);
    // The worker cannot go on (refused enrollment, lost identity without a token).
    void fatalError(const QString &message);

private:
    void enroll();
    void handleEnrollAnswer();
    void beginOperating();
    void stopOperating();
    bool handleUnauthorized(const Error &error, const char *what);
    void sendHeartbeat();
    void handleHeartbeatAnswer();
    void pollLease();
    void handleLeaseAnswer();
    void startTask(const TaskLease &lease);
    void rejectTask(qint64 taskId, const QString &message);
    // A task leased while the owner's policy says no: reported preempted without starting it.
    void giveBackTask(qint64 taskId, const QString &why);
    void handleTaskFinished(qint64 taskId, const QString &state);

    Status prepareSandbox();
    // Probes podman when the worker runs containers (--container-runtime podman).
    Status prepareContainers();
    // Writes the CDI spec of the GPUs nvidia-smi saw, so that containers can be given them.
    void prepareGpuDevices();
    // --backend slurm: the partition's capacity becomes the worker's resources.
    Status prepareSlurm();
    // Measures tasks and the machine every --sample-interval and sends the samples to the server.
    void startSampling();
    // --only-when-idle, --available: the owner's say over when tasks run here.
    Status prepareOwnerPolicy();
    // --task-disk-limit: a task whose folder grows past it fails.
    void watchTaskDisks();
    // The owner's policy turned: take no tasks and preempt the running ones, or take them again.
    void handleOwnerPolicyChanged(const QString &refusal);
    QJsonObject resourcesJson() const;
    int freeSlots() const;
    QList<int> freeGpus() const;

    WorkerConfig m_config;
    HostResources m_resources;
    int m_slots = 1;
    QString m_advertiseAddress;
    QString m_gpuType; // matched by OpenPAI's gpuType
    Sandbox m_sandbox;
    SandboxPolicy m_sandboxPolicy;
    PodmanRuntime m_podman; // not available: no --container-runtime podman
    ApiClient *m_client = nullptr;
    BlobCache *m_cache = nullptr;
    VenvManager *m_venvs = nullptr;
    ImageLoader *m_images = nullptr; // with podman only
    SlurmBackend *m_slurm = nullptr; // with --backend slurm only
    UsageSampler *m_sampler = nullptr; // none with --sample-interval 0
    SampleReporter *m_samples = nullptr;
    OwnerPolicy *m_owner = nullptr; // none with --backend slurm
    QList<GpuInfo> m_detectedGpus;  // all of the machine's; m_resources.gpus: the lent ones
    TaskDiskWatch *m_diskWatch = nullptr; // none until a --task-disk-limit is set
    std::optional<WorkerIdentity> m_identity;
    QTimer m_heartbeatTimer;
    QTimer m_leaseTimer;
    QTimer m_enrollRetryTimer;
    ApiRequest *m_enrollRequest = nullptr;
    ApiRequest *m_heartbeatRequest = nullptr;
    ApiRequest *m_leaseRequest = nullptr;
    bool m_operating = false;
    bool m_enrollFailureLogged = false;
    bool m_heartbeatFailing = false;
    bool m_heartbeatAgain = false; // news came while a heartbeat was on its way: send another
    QMap<qint64, TaskRunner *> m_tasks;
    QSet<int> m_busyGpus;
    CpuCorePool m_cpuCores; // the cores of the worker's own affinity, given to tasks by lease.cpus
};

} // namespace ddl::worker
