#pragma once

#include "core/result.h"

#include <QString>
#include <QStringList>

class QProcess;

namespace ddl::worker {

// What the worker's owner decided for every task (worker.yaml and flags).
struct SandboxPolicy
{
    bool network = true; // false (--no-network): the task gets a network namespace of its own
    // Folders and files never shown to a task even where they lie under a system folder the
    // sandbox shows (the work folder, the owner's home, worker.yaml with its token).
    QStringList hiddenPaths;
};

// What one task may see and do. Every path is bound at the place it has outside, so that the
// paths a task gets in its arguments and environment hold inside as well.
struct SandboxSpec
{
    QStringList readOnlyPaths; // code, dataset, the runner script, the venv
    QStringList writablePaths; // output and scratch
    QString scratchDir;        // HOME and TMPDIR inside
    QString workingDir;
    SandboxPolicy policy;
    // Bind the task's own GPUs' nodes (/dev/nvidiaN for each N of gpuMinors, the driver's minor
    // numbers), NVIDIA's control nodes and /sys read-only; no other GPU's node is shown.
    bool gpuDevices = false;
    QList<int> gpuMinors;
    QString devDir = QStringLiteral("/dev"); // where the nodes are found (a test's fake folder)
    // Resource limits, set in the sandbox's first process before it execs (setrlimit) and
    // inherited by everything it starts; 0 leaves a limit as it is. Both apply per process,
    // not per task: RLIMIT_DATA bounds one process's private writable memory, RLIMIT_NPROC
    // counts every process of the worker's user (see Sandbox::setup).
    qint64 dataLimitBytes = 0;
    qint64 processLimit = 0;
    qint64 shmBytes = 0; // the size of the task's own /dev/shm; 0: tmpfs's default (half the RAM)
};

// The seam between the runner and the operating system's means to confine a task: bubblewrap
// (bwrap) on Linux, nothing elsewhere. probe() runs once when the worker starts; a worker whose
// sandbox cannot run refuses to start unless its owner passes --no-sandbox.
class Sandbox
{
public:
    enum class Kind { None, Bubblewrap };

    // No confinement (--no-sandbox): setup() is never called for it.
    Sandbox() = default;

    // /usr/bin/bwrap where it exists, else bwrap on PATH.
    static QString defaultBubblewrapPath();
    // Runs `true` once through bubblewrap with the namespaces, mounts and policy of a real task,
    // so that a kernel or container refusing one of them stops the worker at start rather than
    // failing every task. The error says what failed, how to install bubblewrap, and that
    // --no-sandbox runs tasks unconfined.
    static Result<Sandbox> probe(const QString &bubblewrap, const SandboxPolicy &policy = {});

    // The system folders a task sees read-only: /usr, /etc, /lib*, /bin, /sbin, /opt where they
    // exist.
    static QStringList systemFolders();
    // True when path (symbolic links resolved) lies inside one of the system folders.
    static bool showsSystemPath(const QString &path);
    // What to hide so that tasks never read the worker's config file: its whole folder (a
    // /dev/null bound over the one file is gone from a running task's view once an editor
    // saves by rename, and editor backups lie beside it), unless that folder is a system folder
    // itself or one just below /usr (/etc/ddl-worker.yaml, /usr/lib/...): then the file alone.
    static QString configHidingPath(const QString &configFile);

    Kind kind() const { return m_kind; }
    bool isEnabled() const { return m_kind != Kind::None; }
    QString program() const { return m_program; }

    // The arguments of bubblewrap that run program with arguments as spec describes.
    QStringList
    arguments(const SandboxSpec &spec, const QString &program, const QStringList &arguments) const;
    // Makes process run program inside the sandbox: sets its program and arguments and adds the
    // resource limits of spec to its child process modifier (after the one already set, such as
    // processtree::makeSessionLeader's).
    void setup(QProcess &process,
               const SandboxSpec &spec,
               const QString &program,
               const QStringList &arguments) const;

    // Asks the processes inside the sandbox started as launcherPid to end: SIGTERM to the
    // sandbox's session, which bubblewrap's --new-session made apart from the launcher's process
    // group. SIGKILL to the launcher's group (processtree::killTree) ends everything at once:
    // with --die-with-parent the sandbox's first process dies with bubblewrap, and the kernel
    // ends every process of a PID namespace whose first process is gone.
    bool terminate(qint64 launcherPid) const;

    // One line for the task's log: "bubblewrap, network allowed", "none (--no-sandbox)".
    QString describe(const SandboxPolicy &policy) const;

private:
    // The message of a worker that cannot sandbox: reason, how to install bubblewrap, and
    // --no-sandbox.
    static QString refusal(const QString &reason);

    Kind m_kind = Kind::None;
    QString m_program;
};

} // namespace ddl::worker
