// Tasks in containers: podman (https://podman.io), Debian package podman. Measured on Debian 12
// (podman 4.3.1): on a hybrid cgroup hierarchy crun refuses to start containers and runc works;
// the container's first process gets the rlimits podman asks for, and one that raises a limit
// above the worker's own fails (root without CAP_SYS_RESOURCE), so both are asked for as they are.
#include "podmanruntime.h"

#include "container/cdispec.h"
#include "workerlogging.h"

#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

constexpr int ProbeTimeoutMs = 30000;
constexpr char WorkDirLabel[] = "ddl.workdir";
constexpr qint64 ContainerProcessLimit = 4096; // as TaskProcessAllowance for bubblewrap

QString refusal(const QString &reason)
{
    return u"cannot run tasks in container images: %1. Install podman and runc (Debian/Ubuntu: "
           u"sudo apt install podman runc uidmap), check that 'podman info' runs for the worker's "
           u"user, or start the worker without --container-runtime podman (its tasks then run "
           u"in the bubblewrap sandbox, and a job's log says when its image was not used)"_s
        .arg(reason);
}

// The limit value (soft:hard) the worker's own process has: the container may not get more.
QString currentLimit(int resource, qint64 wanted)
{
    struct rlimit limit;
    if (::getrlimit(resource, &limit) != 0)
        return QString::number(wanted) + u':' + QString::number(wanted);
    auto clamp = [wanted](rlim_t value) {
        if (wanted > 0 && (value == RLIM_INFINITY || value > rlim_t(wanted)))
            return QString::number(wanted);
        return value == RLIM_INFINITY ? u"-1"_s : QString::number(qulonglong(value));
    };
    const QString hard = clamp(limit.rlim_max);
    return hard + u':' + hard;
}

QString runcPath()
{
    const QString system = u"/usr/bin/runc"_s;
    if (QFileInfo(system).isExecutable())
        return system;
    return QStandardPaths::findExecutable(u"runc"_s);
}

// Runs podman with arguments and waits; the error says what podman said.
Result<QByteArray> runPodman(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForStarted(ProbeTimeoutMs))
        return Error::make(ErrorCode::ContainerUnavailable,
                           refusal(u"%1 does not start: %2"_s.arg(program, process.errorString())));
    process.closeWriteChannel();
    if (!process.waitForFinished(ProbeTimeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        return Error::make(
            ErrorCode::ContainerUnavailable,
            refusal(u"'%1 %2' did not finish within %3 s"_s.arg(program, arguments.join(u' '))
                        .arg(ProbeTimeoutMs / 1000)));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QString said = QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
        return Error::make(
            ErrorCode::ContainerUnavailable,
            refusal(u"'%1 %2' failed (exit %3)%4"_s.arg(program, arguments.join(u' '))
                        .arg(process.exitCode())
                        .arg(said.isEmpty() ? QString() : u": "_s + said)));
    }
    return process.readAllStandardOutput();
}

} // namespace

QString PodmanRuntime::defaultPodmanPath()
{
    const QString system = u"/usr/bin/podman"_s;
    if (QFileInfo(system).isExecutable())
        return system;
    const QString onPath = QStandardPaths::findExecutable(u"podman"_s);
    return onPath.isEmpty() ? system : onPath;
}

Result<PodmanRuntime> PodmanRuntime::probe(const QString &podman, const QString &workDir)
{
    const QString program = podman.isEmpty() ? defaultPodmanPath() : podman;
    const QFileInfo info(program);
    if (!info.exists() || !info.isExecutable())
        return Error::make(ErrorCode::ContainerUnavailable,
                           refusal(u"podman (%1) is not installed"_s.arg(program)));
    if (runcPath().isEmpty())
        return Error::make(ErrorCode::ContainerUnavailable,
                           refusal(u"runc is not installed (crun, podman's default on Debian 12, "
                                   u"cannot start containers on a hybrid cgroup hierarchy)"_s));
    if (Result<QByteArray> version =
            runPodman(program, {u"info"_s, u"--format"_s, u"{{.Host.OCIRuntime.Name}}"_s});
        !version)
        return version.error();

    PodmanRuntime runtime;
    runtime.m_program = info.absoluteFilePath();
    runtime.m_workDirLabel = QString::fromLatin1(WorkDirLabel) + u'=' + workDir;
    // A worker that died (or was killed) leaves its tasks' containers running under conmon.
    const Result<QByteArray> left = runPodman(
        runtime.m_program,
        {u"ps"_s, u"--all"_s, u"--quiet"_s, u"--filter"_s, u"label="_s + runtime.m_workDirLabel});
    if (left && !left->trimmed().isEmpty()) {
        const QStringList ids = QString::fromLatin1(*left).split(u'\n', Qt::SkipEmptyParts);
        qCInfo(lcWorkerAgent) << "removing" << ids.size()
                              << "container(s) an earlier run of the worker left";
        (void)runPodman(runtime.m_program, QStringList{u"rm"_s, u"--force"_s} + ids);
    }
    return runtime;
}

Status PodmanRuntime::checkImageReference(const QString &image)
{
    // A registry host, a path, a tag and a digest use no other characters; the first one is never
    // '-', so the reference cannot pass for one of podman's options.
    static const QRegularExpression reference(
        QRegularExpression::anchoredPattern(u"[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,511}"_s));
    if (reference.match(image).hasMatch())
        return Ok{};
    return Error::make(ErrorCode::InvalidImage,
                       u"the job's image '%1' is not an image reference: use letters, digits and "
                       u". _ / : @ + - only, starting with a letter or digit, as in "
                       u"docker.io/library/python:3.11"_s.arg(image.left(100)));
}

QString PodmanRuntime::containerName(qint64 taskId)
{
    return u"ddl-task-%1"_s.arg(taskId);
}

QStringList PodmanRuntime::runArguments(const ContainerSpec &spec,
                                        const QString &program,
                                        const QStringList &arguments) const
{
    const SandboxSpec &box = spec.sandbox;
    QStringList args{u"--runtime"_s,
                     runcPath(),
                     u"run"_s,
                     u"--rm"_s,
                     u"--name"_s,
                     spec.name,
                     u"--label"_s,
                     m_workDirLabel,
                     // Output reaches the worker attached; a log file of its own would copy it.
                     u"--log-driver"_s,
                     u"none"_s,
                     u"--pull"_s,
                     u"missing"_s,
                     u"--read-only"_s,
                     u"--read-only-tmpfs"_s,
                     u"--cap-drop"_s,
                     u"ALL"_s,
                     u"--security-opt"_s,
                     u"no-new-privileges"_s,
                     u"--ulimit"_s,
                     u"nofile="_s + currentLimit(RLIMIT_NOFILE, 0),
                     u"--ulimit"_s,
                     u"nproc="_s + currentLimit(RLIMIT_NPROC, ContainerProcessLimit),
                     u"--pids-limit"_s,
                     QString::number(ContainerProcessLimit)};
    // The worker's user inside as outside, so that outputs belong to it: rootless podman maps it
    // through --userns=keep-id.
    const uint uid = ::getuid();
    if (uid != 0)
        args << u"--userns=keep-id"_s;
    args << u"--user"_s << u"%1:%2"_s.arg(uid).arg(::getgid());
    // The host's network (the task's port is in its peers' host lists) or none at all.
    args << u"--network"_s << (box.policy.network ? u"host"_s : u"none"_s);
    if (!spec.cpuCores.isEmpty()) {
        QStringList cores;
        for (int core : spec.cpuCores)
            cores << QString::number(core);
        args << u"--cpuset-cpus"_s << cores.join(u',');
    }
    if (spec.memoryBytes > 0)
        args << u"--memory"_s << QString::number(spec.memoryBytes);
    // Exactly the granted GPUs' nodes, with the driver's files (CdiSpec).
    for (const int gpu : spec.gpus)
        args << u"--device"_s << CdiSpec::deviceName(gpu, m_gpuKind);
    if (box.shmBytes > 0)
        args << u"--shm-size"_s << QString::number(box.shmBytes);
    for (const QString &path : box.readOnlyPaths)
        args << u"--volume"_s << path + u':' + path + u":ro"_s;
    QStringList writable = box.writablePaths;
    if (!box.scratchDir.isEmpty() && !writable.contains(box.scratchDir))
        writable << box.scratchDir;
    for (const QString &path : std::as_const(writable))
        args << u"--volume"_s << path + u':' + path + u":rw"_s;
    if (!box.workingDir.isEmpty())
        args << u"--workdir"_s << box.workingDir;
    if (!spec.envFile.isEmpty())
        args << u"--env-file"_s << spec.envFile;
    // "--": nothing after it is taken for an option of podman's.
    args << u"--"_s << spec.image << program << arguments;
    return args;
}

void PodmanRuntime::signal(const QString &name, int signal) const
{
    if (!isAvailable())
        return;
    QProcess::startDetached(m_program, {u"kill"_s, u"--signal"_s, QString::number(signal), name});
}

void PodmanRuntime::remove(const QString &name) const
{
    if (!isAvailable())
        return;
    QProcess::startDetached(m_program,
                            {u"rm"_s, u"--force"_s, u"--ignore"_s, u"--time"_s, u"0"_s, name});
}

} // namespace ddl::worker
