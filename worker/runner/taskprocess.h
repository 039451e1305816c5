#pragma once

#include "container/podmanruntime.h"
#include "logindex.h"
#include "runner/taskexecution.h"
#include "sandbox/sandbox.h"
#include "wire/tasklease.h"

#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

namespace ddl::worker {

// The folders of one task: WORK_DIR/tasks/<task_id>/{code,output,checkpoint,scratch,bin} and
// the dataset it reads.
struct TaskPaths
{
    QString taskDir;
    QString codeDir;
    QString outputDir;
    QString checkpointDir; // DDL_CHECKPOINT_DIR: uploaded while it runs, restored on its next attempt
    QString scratchDir; // HOME and TMPDIR of the task
    QString datasetDir;
    QString binDir;     // first on the task's PATH: `python` when the system has only python3
    QString runnerFile; // the Python runner of kind Ddl
    QString logFile;

    static TaskPaths forTask(const QString &tasksRoot, qint64 taskId);
};

// What a task's process needs to start: for kind Ddl the embedded Python runner imports the
// package's main.py and calls main(dataset_dir, model_output_dir); for kind OpenPai the command
// runs through bash -c (/bin/sh -c where there is no bash). Both run in the code folder (which
// an OpenPai task may write to), inside the sandbox when one is given.
struct LaunchSpec
{
    TaskLease::Kind kind = TaskLease::Kind::Ddl;
    QString python;  // interpreter (the venv's when the package has requirements.txt)
    QString command; // OpenPai only
    TaskPaths paths;
    QProcessEnvironment environment;
    Sandbox sandbox; // disabled: the task runs unconfined
    SandboxSpec sandboxSpec;
    // The CPU cores the task's first process is pinned to (and with it everything it starts),
    // also given to it as DDL_CPU_CORES ("2,3"); empty: not pinned, and no DDL_CPU_CORES.
    QList<int> cpuCores;
    // Not empty: the task runs in a container of this image through podman instead of the
    // sandbox, with the same folders (sandboxSpec) bound at the same paths, python3 and bash of
    // the image, and the memory limit as the container's.
    QString image;
    QString containerName; // PodmanRuntime::containerName of the task
    QList<int> gpus;       // the worker's GPU indices given to the container
    PodmanRuntime podman;
    qint64 memoryBytes = 0;
};

// How many processes a sandboxed task may add to those the worker's user already runs
// (RLIMIT_NPROC; see Sandbox::setup for what the kernel counts).
inline constexpr qint64 TaskProcessAllowance = 4096;

// What the sandbox shows a task: its dataset, runner, bin folder and venv read-only; its code
// read-only for kind Ddl and writable for kind OpenPai (its commands work in it, as in an
// OpenPAI container); its output, checkpoint and scratch folders writable, the scratch as HOME and TMPDIR; the
// system folders read-only; and nothing else of the work folder or the owner's home. A task without
// GPUs gets RLIMIT_DATA of twice its memoryMB plus 1 GiB per process (RLIMIT_AS would count the
// address space that threads and malloc arenas only reserve; GPU tasks get none, as CUDA reserves
// far more address space than memory).
SandboxSpec taskSandboxSpec(const TaskLease &lease,
                            const TaskPaths &paths,
                            const QString &venvDir,
                            const SandboxPolicy &policy);

// What the worker adds to the environment of a task.
struct TaskEnvironmentInput
{
    QString advertiseAddress; // PAI_CURRENT_CONTAINER_IP
    quint16 port = 0;         // PAI_CURRENT_CONTAINER_PORT
    QList<int> gpuIndices;    // CUDA_VISIBLE_DEVICES
    QString venvDir;          // empty: no venv
    int preemptNoticeS = 30;  // DDL_PREEMPT_NOTICE_S: seconds between SIGTERM and SIGKILL
};

// The PATH of every task: the system's folders, never the worker's own PATH (a task's bin
// folder and venv come before it).
inline constexpr char TaskSearchPath[] =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// What a process the worker starts for a task's user sees of the machine: PATH (TaskSearchPath),
// LANG and LC_ALL (C.UTF-8), HOME and TMPDIR (home). Nothing of the worker's own environment:
// its owner's credentials must not reach strangers' code.
QProcessEnvironment cleanEnvironment(const QString &home);

// The environment of a task (docs/seed-session.md, "What a task sees"): cleanEnvironment with
// the task's scratch folder as HOME; the lease's env (PAI_* and DDL_* from the server); the
// PAI_* the worker fills (current container ip/port; job, role and index when the server left
// them out); PAI_DATA_DIR, PAI_OUTPUT_DIR and PAI_CODE_DIR as the task's real folders (the job's
// own strings as PAI_*_DIR_URI); DDL_DATASET_DIR, DDL_OUTPUT_DIR, CUDA_VISIBLE_DEVICES,
// DDL_CHECKPOINT_DIR, PYTHONPATH, and the venv.
QProcessEnvironment
taskEnvironment(const TaskLease &lease, const TaskPaths &paths, const TaskEnvironmentInput &input);

// Makes `python` run python (the worker's interpreter) in binDir when the task's PATH has no
// python of its own, as seed configs run `python train.py` where systems ship only python3.
Status preparePythonShim(const QString &binDir, const QString &python);

// The Python runner of DDL tasks, as embedded in the worker (resource).
QByteArray ddlRunnerScript();

// One task's process tree. Output is emitted as it arrives, stdout and stderr read apart (each
// piece says which; between the two, the order is the order in which the worker read them). The
// process leads its own session so that cancel ends everything it spawned. A sandboxed task's
// first process is bubblewrap, which dies with the worker and takes the task's whole PID
// namespace with it. A task in a container is ended through podman (kill, then rm), as its
// processes are not the worker's children but conmon's.
class TaskProcess : public TaskExecution
{
    Q_OBJECT
public:
    explicit TaskProcess(QObject *parent = nullptr);
    ~TaskProcess() override;

    // Writes the runner into the task folder (kind Ddl) and starts. Emits started() or
    // finished() with a message when it cannot start.
    void start(const LaunchSpec &spec) override;
    // SIGTERM to the whole tree, SIGKILL after graceMs if anything is left.
    void terminate(int graceMs) override;
    bool isRunning() const override { return m_process.state() != QProcess::NotRunning; }
    QString describe() const override;
    qint64 processId() const override { return m_pid; }

private:
    void handleStarted();
    void handleReadyRead();
    void handleReadyReadError();
    void handleFinished(int exitCode, QProcess::ExitStatus status);
    void handleErrorOccurred(QProcess::ProcessError error);
    void handleGraceExpired();
    // Sets m_process up to run the task in a container; false (finished() emitted) when it cannot.
    bool setupContainer(const LaunchSpec &spec);
    // Writes the DDL runner to path; false (finished() emitted) when it cannot.
    bool writeRunner(const QString &path);

    QProcess m_process;
    Sandbox m_sandbox;
    PodmanRuntime m_podman;
    QString m_containerName; // empty: not in a container
    QTimer m_killTimer;
    qint64 m_pid = 0;
    bool m_done = false;
};

} // namespace ddl::worker
