#pragma once

#include "runner/taskprocess.h"
#include "wire/tasklease.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <functional>
#include <optional>

namespace ddl {
class ApiClient;
} // namespace ddl

namespace ddl::worker {

class BlobCache;
class CheckpointSync;
class ImageLoader;
class LogStreamer;
class VenvManager;

// What the tasks of one worker share.
struct TaskServices
{
    ApiClient *client = nullptr;
    BlobCache *cache = nullptr;
    VenvManager *venvs = nullptr;
    QString tasksRoot;        // WORK_DIR/tasks
    QString python;           // interpreter when the package has no requirements.txt
    QString advertiseAddress; // PAI_CURRENT_CONTAINER_IP
    QString workerName;
    Sandbox sandbox; // disabled: --no-sandbox
    SandboxPolicy sandboxPolicy;
    PodmanRuntime podman; // not available: tasks whose job names an image run in the sandbox
    ImageLoader *images = nullptr; // loads ddl:// images into podman; set with podman
    int logFlushIntervalMs = 100;
    int killGraceMs = 5000;
    int preemptNoticeS = 30; // the grace of a preempted task (DDL_PREEMPT_NOTICE_S)
    int checkpointIntervalS = 300; // uploads of DDL_CHECKPOINT_DIR while it runs; 0: none
    // GPU index (nvidia-smi's) -> the minor number of its /dev/nvidiaN; absent: the same.
    QHash<int, int> gpuMinors;
    // Where tasks run; empty: as processes of this machine (TaskProcess). The Slurm backend
    // gives one that makes each task a step of a Slurm job (worker/slurm).
    std::function<TaskExecution *(const TaskLease &lease, QObject *parent)> executionFactory;
};

// Runs one leased task from start to end: fetches its code and dataset through the cache,
// extracts the code into WORK_DIR/tasks/<id>/code, lays out its latest checkpoint (CheckpointSync),
// prepares a venv when the package has a
// requirements.txt, runs the process in the sandbox on its CPU cores (reporting RUNNING when it
// starts) while its output streams to the server, then uploads every file of output/ as an
// artifact (under the lease's output prefix, "worker-1/", when the job has several tasks) and
// reports the final state: SUCCEEDED for exit code 0, FAILED otherwise, STOPPED
// when it was cancelled or preempted.
class TaskRunner : public QObject
{
    Q_OBJECT
public:
    enum class Phase { Preparing, Running, Finishing, Done };

    // cpuCores: the cores the task is pinned to (CpuCorePool); empty: not pinned.
    TaskRunner(const TaskLease &lease,
               const QList<int> &gpuIndices,
               const QList<int> &cpuCores,
               const TaskServices &services,
               QObject *parent = nullptr);
    ~TaskRunner() override;

    void start();
    // Ends the task: its process tree gets SIGTERM, then SIGKILL after the grace period.
    void cancel();
    // Ends the task because the machine's owner needs it (why): SIGTERM, then SIGKILL after
    // preemptNoticeS; reported STOPPED and preempted, so that its job waits for another worker.
    void preempt(const QString &why);
    // Ends the task as FAILED for breaking a limit its worker's owner set (why): SIGTERM, then
    // SIGKILL after the grace period; its outputs are not uploaded.
    void failOverLimit(const QString &why);
    // The task's process has ended (its last checkpoint may still be on its way): no limit
    // applies to it any more.
    bool processEnded() const;
    // The task's own folder, and the part of it that is the worker's cache (hard links to the
    // dataset's blobs), not the task's writing.
    QString taskDir() const;
    QString datasetDir() const;

    qint64 taskId() const { return m_lease.taskId; }
    const TaskLease &lease() const { return m_lease; }
    const QList<int> &gpuIndices() const { return m_gpuIndices; }
    const QList<int> &cpuCores() const { return m_cpuCores; }
    Phase phase() const { return m_phase; }
    const TaskPaths &paths() const { return m_paths; }
    // The task's first process while it runs, else 0 (utilisation samples measure its tree).
    qint64 processId() const;
    // The podman container the task runs in (PodmanRuntime::containerName); empty: none. Its
    // processes are conmon's, not the first process's children.
    QString containerName() const;

signals:
    // After the final state was reported (or could not be); state is SUCCEEDED, FAILED or STOPPED.
    void finished(qint64 taskId, const QString &state);

private:
    enum class EndKind { Cancelled, Preempted, OverLimit };
    // cancel(), preempt() and failOverLimit(): SIGTERM, then SIGKILL after graceMs, with the
    // same guards; a task whose process ended is left alone, except that a cancel stops its
    // last checkpoint upload.
    void endEarly(EndKind kind, const QString &why, int graceMs);
    struct Artifact
    {
        QString filePath;
        QString relativePath;
        qint64 size = 0;
        QString sha256;
        QString error;
        int tries = 0; // uploads that could not reach the server
    };

    bool stillPreparing() const;
    QString pinOwner() const;
    void fetchPackage();
    void extractPackage(const QString &blob);
    void fetchDataset();
    void fetchManifestDataset();
    void restoreCheckpoint();
    void prepareEnvironment();
    // A ddl:// image: its OCI layout through the cache, loaded into podman once.
    void fetchImage();
    // True when the task runs in a container of its job's image (the worker has podman, the task
    // no GPUs).
    bool runsInContainer() const;
    void launch();
    void handleProcessStarted();
    void handleProcessFinished(int exitCode, const QString &description);
    // The final state of a task whose process ended (after its last checkpoint upload).
    void concludeProcess(bool started, std::optional<int> code, const QString &description);
    // How long the last checkpoint upload of an ended task may take.
    int finalCheckpointTimeoutMs() const;
    // A pending reason of the cluster: an event, and the job's reason while it waits.
    void handleWaiting(const QString &reason);
    void failPreparation(const QString &message);
    void finishTask(const QString &state,
                    std::optional<int> exitCode,
                    const QString &message,
                    bool uploadOutputs);
    void collectArtifacts();
    void uploadNextArtifact();
    void postArtifacts();
    void drainLogAndReport();
    void reportFinalState();
    // A step of the task's preparation: a line of its log and one of its job's events.
    // waitingReason: the message is also the job's reason while it is WAITING.
    void reportEvent(const QString &message, bool waitingReason = false);
    void reportState(const QString &state,
                     std::optional<int> exitCode,
                     const QString &message,
                     std::function<void()> then,
                     int attempt = 1);

    TaskLease m_lease;
    QList<int> m_gpuIndices;
    QList<int> m_cpuCores;
    TaskServices m_services;
    TaskPaths m_paths;
    Phase m_phase = Phase::Preparing;
    LogStreamer *m_log = nullptr;
    CheckpointSync *m_checkpoints = nullptr;
    bool m_savingCheckpoint = false; // the process ended; its last checkpoint is on its way
    bool m_cancelAbortedUpload = false;
    QElapsedTimer m_preemptedSince;
    TaskExecution *m_process = nullptr;
    QString m_python;
    QString m_venvDir;
    QString m_imageId; // the loaded ddl:// image's podman ID; empty: run m_lease.image
    bool m_cancelled = false;
    QString m_preempted; // why the owner took the machine back; empty: not preempted
    QString m_overLimit; // which owner's limit the task broke; empty: none
    bool m_runningReportInFlight = false;
    std::function<void()> m_afterRunningReport;

    QString m_finalState;
    std::optional<int> m_exitCode;
    QString m_finalMessage;
    QList<Artifact> m_artifacts;
    qsizetype m_nextArtifact = 0;
    int m_postArtifactsTries = 0;
};

} // namespace ddl::worker
