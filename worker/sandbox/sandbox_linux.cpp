// The Linux sandbox: bubblewrap (https://github.com/containers/bubblewrap), which the Debian
// package bubblewrap installs as /usr/bin/bwrap. It runs unprivileged through user namespaces.
#include "sandbox.h"

#include "process/processtree.h"
#include "workerlogging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

constexpr int ProbeTimeoutMs = 15000;

// Variables of the worker's session that name places a task cannot see (the owner's home, the
// session bus, the ssh agent); programs fall back to $HOME, which is the task's scratch folder.
const char *const SessionVariables[] = {"XDG_RUNTIME_DIR",
                                        "XDG_CONFIG_HOME",
                                        "XDG_CACHE_HOME",
                                        "XDG_DATA_HOME",
                                        "XDG_STATE_HOME",
                                        "DBUS_SESSION_BUS_ADDRESS",
                                        "SSH_AUTH_SOCK",
                                        "GNUPGHOME"};

QString cleanAbsolute(const QString &path)
{
    return QDir::cleanPath(QDir(path).absolutePath());
}

// The pids whose parent is pid (the sandbox's first process is the only child of bwrap).
QList<pid_t> childrenOf(qint64 pid)
{
    QList<pid_t> children;
    for (const processtree::ProcessEntry &entry : processtree::processTable()) {
        if (entry.parentPid == pid)
            children.append(pid_t(entry.pid));
    }
    return children;
}

// How many processes the worker's user runs now (RLIMIT_NPROC counts them all).
qint64 processesOfThisUser()
{
    const uint uid = ::getuid();
    qint64 count = 0;
    const QFileInfoList entries = QDir(u"/proc"_s).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QFileInfo &entry : entries) {
        bool isPid = false;
        entry.fileName().toLongLong(&isPid);
        if (isPid && entry.ownerId() == uid)
            ++count;
    }
    return count;
}

} // namespace

QString Sandbox::defaultBubblewrapPath()
{
    const QString system = u"/usr/bin/bwrap"_s;
    if (QFileInfo(system).isExecutable())
        return system;
    const QString onPath = QStandardPaths::findExecutable(u"bwrap"_s);
    return onPath.isEmpty() ? system : onPath;
}

QStringList Sandbox::systemFolders()
{
    QStringList folders;
    for (const QString &folder : {u"/usr"_s,
                                  u"/etc"_s,
                                  u"/opt"_s,
                                  u"/bin"_s,
                                  u"/sbin"_s,
                                  u"/lib"_s,
                                  u"/lib32"_s,
                                  u"/lib64"_s,
                                  u"/libx32"_s}) {
        if (QFileInfo(folder).isDir())
            folders << folder;
    }
    return folders;
}

Result<Sandbox> Sandbox::probe(const QString &bubblewrap, const SandboxPolicy &policy)
{
    const QString program = bubblewrap.isEmpty() ? defaultBubblewrapPath() : bubblewrap;
    const QFileInfo info(program);
    if (!info.exists()) {
        return Error::make(ErrorCode::SandboxUnavailable,
                           refusal(u"bubblewrap (%1) is not installed"_s.arg(program)));
    }
    if (!info.isFile() || !info.isExecutable()) {
        return Error::make(ErrorCode::SandboxUnavailable,
                           refusal(u"bubblewrap (%1) is not an executable file"_s.arg(program)));
    }
    Sandbox sandbox;
    sandbox.m_kind = Kind::Bubblewrap;
    sandbox.m_program = info.absoluteFilePath();

    // The probe uses the namespaces and mounts of a real task, so that a kernel or container
    // that refuses one of them is found now rather than by the first task.
    SandboxSpec spec;
    spec.policy = policy;
    spec.workingDir = u"/"_s;
    QString truePath = QStandardPaths::findExecutable(u"true"_s);
    if (truePath.isEmpty())
        truePath = u"/bin/true"_s;
    QProcess process;
    process.setProgram(sandbox.m_program);
    process.setArguments(sandbox.arguments(spec, truePath, {}));
    process.start();
    if (!process.waitForStarted(ProbeTimeoutMs)) {
        return Error::make(ErrorCode::SandboxUnavailable,
                           refusal(u"bubblewrap (%1) does not start: %2"_s.arg(
                               sandbox.m_program, process.errorString())));
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(ProbeTimeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        return Error::make(ErrorCode::SandboxUnavailable,
                           refusal(u"bubblewrap (%1) did not finish a trial run within %2 s"_s
                                       .arg(sandbox.m_program)
                                       .arg(ProbeTimeoutMs / 1000)));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QString said = QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
        QString reason = u"bubblewrap (%1) does not work here (exit %2%3)"_s.arg(sandbox.m_program)
                             .arg(process.exitCode())
                             .arg(said.isEmpty() ? QString() : u": "_s + said);
        if (said.contains(u"namespace"_s, Qt::CaseInsensitive) ||
            said.contains(u"uid map"_s, Qt::CaseInsensitive) ||
            said.contains(u"not permitted"_s, Qt::CaseInsensitive) ||
            said.contains(u"Permission denied"_s, Qt::CaseInsensitive)) {
            reason += u"; the kernel may refuse unprivileged user namespaces (sysctl "
                      u"kernel.unprivileged_userns_clone, user.max_user_namespaces, or AppArmor's "
                      u"kernel.apparmor_restrict_unprivileged_userns)"_s;
        }
        return Error::make(ErrorCode::SandboxUnavailable, refusal(reason));
    }
    return sandbox;
}

QStringList Sandbox::arguments(const SandboxSpec &spec,
                               const QString &program,
                               const QStringList &arguments) const
{
    QStringList args{u"--die-with-parent"_s,
                     u"--new-session"_s,
                     u"--unshare-pid"_s,
                     u"--unshare-ipc"_s,
                     // A worker that runs as root must not hand its capabilities to tasks.
                     u"--cap-drop"_s,
                     u"ALL"_s};
    if (!spec.policy.network)
        args << u"--unshare-net"_s;

    // System folders, read-only. Merged-/usr systems have /bin, /lib... as links into /usr.
    const QStringList folders = systemFolders();
    for (const QString &folder : folders) {
        const QFileInfo info(folder);
        const QString target = info.canonicalFilePath();
        if (info.isSymLink() && showsSystemPath(target) && target != folder)
            args << u"--symlink"_s << target << folder;
        else
            args << u"--ro-bind"_s << target << folder;
    }
    // What must stay hidden although it lies under a system folder (a work folder in /opt, a
    // worker.yaml in /etc holding the enrollment token): an empty tmpfs over a folder, /dev/null
    // over a file (bound without device access, so that opening it fails).
    QStringList hiddenDirs;
    for (const QString &hidden : spec.policy.hiddenPaths) {
        const QFileInfo info(hidden);
        if (hidden.isEmpty() || !info.exists() || !showsSystemPath(hidden))
            continue;
        const QString path = info.canonicalFilePath();
        if (info.isDir()) {
            args << u"--tmpfs"_s << path;
            hiddenDirs << path;
        } else {
            args << u"--ro-bind"_s << u"/dev/null"_s << path;
        }
    }
    // With systemd-resolved /etc/resolv.conf links into /run, which is not shown.
    if (spec.policy.network) {
        const QFileInfo resolv(u"/etc/resolv.conf"_s);
        const QString target = resolv.canonicalFilePath();
        if (resolv.isSymLink() && !target.isEmpty() && !showsSystemPath(target))
            args << u"--ro-bind-try"_s << target << target;
    }

    args << u"--proc"_s << u"/proc"_s << u"--dev"_s << u"/dev"_s;
    if (spec.shmBytes > 0) // bubblewrap >= 0.5
        args << u"--size"_s << QString::number(spec.shmBytes);
    args << u"--tmpfs"_s << u"/dev/shm"_s << u"--tmpfs"_s << u"/tmp"_s;
    // The task's private /tmp is writable, so folders bwrap would make there to hold binds (a
    // work folder under /tmp) would be too: give each its own tmpfs, made read-only below.
    for (const QString &path : spec.readOnlyPaths + spec.writablePaths + QStringList{spec.scratchDir}) {
        const QString clean = cleanAbsolute(path);
        for (const QString &writableRoot : {u"/tmp/"_s, u"/dev/shm/"_s}) {
            if (!clean.startsWith(writableRoot))
                continue;
            const QString holder = writableRoot
                                   + clean.mid(writableRoot.size()).section(u'/', 0, 0);
            if (!hiddenDirs.contains(holder) && holder != clean) {
                args << u"--tmpfs"_s << holder;
                hiddenDirs << holder;
            }
        }
    }
    if (spec.gpuDevices) {
        // Only the granted GPUs' nodes: CUDA_VISIBLE_DEVICES is the task's to change, so a node
        // shown is a GPU used. The control nodes serve every GPU and hold none of them.
        const QDir dev(spec.devDir);
        QStringList nodes;
        for (const int minor : spec.gpuMinors)
            nodes << u"nvidia%1"_s.arg(minor);
        nodes << u"nvidiactl"_s << u"nvidia-uvm"_s << u"nvidia-uvm-tools"_s
              << u"nvidia-modeset"_s << u"nvidia-caps"_s;
        for (const QString &node : std::as_const(nodes)) {
            if (QFileInfo::exists(dev.filePath(node)))
                args << u"--dev-bind"_s << dev.filePath(node) << u"/dev/"_s + node;
        }
        // The CUDA driver and NVML read the PCI topology there.
        args << u"--ro-bind-try"_s << u"/sys"_s << u"/sys"_s;
    }

    for (const QString &path : spec.readOnlyPaths) {
        const QString clean = cleanAbsolute(path);
        args << u"--ro-bind"_s << clean << clean;
    }
    QStringList writable = spec.writablePaths;
    if (!spec.scratchDir.isEmpty() && !writable.contains(spec.scratchDir))
        writable << spec.scratchDir;
    for (const QString &path : std::as_const(writable)) {
        const QString clean = cleanAbsolute(path);
        args << u"--bind"_s << clean << clean;
    }

    // The folders bwrap made to hold the binds (the path down to the task folder) stay empty
    // and read-only: a task cannot leave files there.
    for (const QString &dir : std::as_const(hiddenDirs))
        args << u"--remount-ro"_s << dir;
    args << u"--remount-ro"_s << u"/"_s;

    if (!spec.workingDir.isEmpty())
        args << u"--chdir"_s << cleanAbsolute(spec.workingDir);
    if (!spec.scratchDir.isEmpty()) {
        const QString scratch = cleanAbsolute(spec.scratchDir);
        args << u"--setenv"_s << u"HOME"_s << scratch << u"--setenv"_s << u"TMPDIR"_s << scratch;
    }
    for (const char *variable : SessionVariables)
        args << u"--unsetenv"_s << QString::fromLatin1(variable);
    args << u"--"_s << program << arguments;
    return args;
}

void Sandbox::setup(QProcess &process,
                    const SandboxSpec &spec,
                    const QString &program,
                    const QStringList &arguments) const
{
    Q_ASSERT(isEnabled());
    process.setProgram(m_program);
    process.setArguments(this->arguments(spec, program, arguments));

    // RLIMIT_NPROC is per user: it counts every process of the worker's user (on kernels since
    // 5.14 also per user namespace), and root ignores it. So the limit is what the user runs now
    // plus what the task may add; other tasks and the owner's own processes share that room.
    const rlim_t data = spec.dataLimitBytes > 0 ? rlim_t(spec.dataLimitBytes) : 0;
    const rlim_t processes =
        spec.processLimit > 0 ? rlim_t(processesOfThisUser() + spec.processLimit) : 0;
    if (data == 0 && processes == 0)
        return;
    const std::function<void()> previous = process.childProcessModifier();
    // Runs in the child between fork and exec: only async-signal-safe calls here.
    process.setChildProcessModifier([previous, data, processes] {
        if (previous)
            previous();
        auto lower = [](int resource, rlim_t value) {
            struct rlimit limit;
            if (::getrlimit(resource, &limit) != 0)
                return;
            if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < value)
                value = limit.rlim_max;
            limit.rlim_cur = value;
            limit.rlim_max = value;
            ::setrlimit(resource, &limit);
        };
        if (data > 0)
            lower(RLIMIT_DATA, data);
        if (processes > 0)
            lower(RLIMIT_NPROC, processes);
    });
}

bool Sandbox::terminate(qint64 launcherPid) const
{
    if (m_kind != Kind::Bubblewrap || launcherPid <= 1)
        return false;
    // bwrap's only child is the first process of the PID namespace; with --new-session it leads
    // the session and process group that the task's processes belong to.
    bool signalled = false;
    const QList<pid_t> children = childrenOf(launcherPid);
    for (pid_t child : children) {
        if (::kill(-child, SIGTERM) == 0)
            signalled = true;
    }
    qCDebug(lcWorkerProcess) << "SIGTERM to the sandbox of" << launcherPid << "sessions" << children
                             << (signalled ? "sent" : "not found");
    return signalled;
}

} // namespace ddl::worker
