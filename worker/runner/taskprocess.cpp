#include "taskprocess.h"

#include "process/cpuaffinity.h"
#include "process/processtree.h"
#include "workerlogging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <csignal>

using namespace Qt::StringLiterals;

namespace ddl::worker {

TaskPaths TaskPaths::forTask(const QString &tasksRoot, qint64 taskId)
{
    TaskPaths paths;
    paths.taskDir = QDir(tasksRoot).filePath(QString::number(taskId));
    paths.codeDir = paths.taskDir + u"/code"_s;
    paths.outputDir = paths.taskDir + u"/output"_s;
    paths.checkpointDir = paths.taskDir + u"/checkpoint"_s;
    paths.scratchDir = paths.taskDir + u"/scratch"_s;
    paths.datasetDir = paths.taskDir + u"/dataset"_s;
    paths.binDir = paths.taskDir + u"/bin"_s;
    paths.runnerFile = paths.taskDir + u"/ddl_runner.py"_s;
    paths.logFile = paths.taskDir + u"/task.log"_s;
    return paths;
}

QProcessEnvironment cleanEnvironment(const QString &home)
{
    QProcessEnvironment env;
    env.insert(u"PATH"_s, QString::fromLatin1(TaskSearchPath));
    env.insert(u"LANG"_s, u"C.UTF-8"_s);
    env.insert(u"LC_ALL"_s, u"C.UTF-8"_s);
    env.insert(u"HOME"_s, home);
    env.insert(u"TMPDIR"_s, home);
    return env;
}

QProcessEnvironment
taskEnvironment(const TaskLease &lease, const TaskPaths &paths, const TaskEnvironmentInput &input)
{
    QProcessEnvironment env = cleanEnvironment(paths.scratchDir);
    for (auto it = lease.env.cbegin(); it != lease.env.cend(); ++it)
        env.insert(it.key(), it.value());
    auto insertIfAbsent = [&env](const QString &name, const QString &value) {
        if (!env.contains(name))
            env.insert(name, value);
    };
    insertIfAbsent(u"PAI_JOB_NAME"_s, lease.jobName);
    insertIfAbsent(u"PAI_TASK_ROLE_NAME"_s, lease.role);
    insertIfAbsent(u"PAI_TASK_ROLE_INDEX"_s, QString::number(lease.roleIndex));
    insertIfAbsent(u"PAI_CURRENT_TASK_ROLE_NAME"_s, lease.role);
    insertIfAbsent(u"PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"_s, QString::number(lease.roleIndex));
    // The server's address for the task is the one in its peers' host lists (the worker's
    // --advertise-address reaches it at enrollment and in every heartbeat).
    insertIfAbsent(u"PAI_CURRENT_CONTAINER_IP"_s, input.advertiseAddress);
    env.insert(u"PAI_CURRENT_CONTAINER_PORT"_s, QString::number(input.port));
    // The job's dataDir/outputDir/codeDir are strings of its config; the task gets real folders
    // (the dataset laid out, the output uploaded as artifacts, the code unpacked).
    const std::pair<QString, QString> folders[] = {{u"PAI_DATA_DIR"_s, paths.datasetDir},
                                                   {u"PAI_OUTPUT_DIR"_s, paths.outputDir},
                                                   {u"PAI_CODE_DIR"_s, paths.codeDir}};
    for (const auto &[key, folder] : folders) {
        if (const QString given = env.value(key); !given.isEmpty())
            env.insert(key + u"_URI"_s, given);
        env.insert(key, folder);
    }
    env.insert(u"DDL_TASK_ID"_s, QString::number(lease.taskId));
    // A job that waited again (a retry, a preemption) runs a new attempt: 1, 2, ...
    env.insert(u"DDL_TASK_ATTEMPT"_s, QString::number(lease.attempt));
    // How long a preempted task has, from SIGTERM, to save its state before SIGKILL.
    env.insert(u"DDL_PREEMPT_NOTICE_S"_s, QString::number(input.preemptNoticeS));
    env.insert(u"DDL_DATASET_DIR"_s, paths.datasetDir);
    env.insert(u"DDL_OUTPUT_DIR"_s, paths.outputDir);
    // What the task saves here its next attempt (after a preemption or failure) finds here again.
    if (!paths.checkpointDir.isEmpty())
        env.insert(u"DDL_CHECKPOINT_DIR"_s, paths.checkpointDir);
    QStringList gpus;
    for (int index : input.gpuIndices)
        gpus << QString::number(index);
    // An empty list hides every GPU from a task that was given none. In the sandbox and in
    // containers, which show only the task's GPUs, CUDA numbers them from 0 (set there);
    // DDL_GPUS keeps the machine's nvidia-smi indexes, for logs.
    env.insert(u"CUDA_VISIBLE_DEVICES"_s, gpus.join(u','));
    env.insert(u"DDL_GPUS"_s, gpus.join(u','));
    // The indexes are nvidia-smi's (PCI order); CUDA numbers the fastest GPU first otherwise,
    // and a machine with two models would give the task a GPU the owner did not lend.
    env.insert(u"CUDA_DEVICE_ORDER"_s, u"PCI_BUS_ID"_s);
    env.insert(u"PYTHONUNBUFFERED"_s, u"1"_s);
    const QString pythonPath = env.value(u"PYTHONPATH"_s); // the job's own, if it set one
    env.insert(u"PYTHONPATH"_s,
               pythonPath.isEmpty() ? paths.codeDir : paths.codeDir + u':' + pythonPath);
    QString path = paths.binDir + u':' + env.value(u"PATH"_s);
    if (!input.venvDir.isEmpty()) {
        env.insert(u"VIRTUAL_ENV"_s, input.venvDir);
        path = input.venvDir + u"/bin:"_s + path;
    }
    env.insert(u"PATH"_s, path);
    return env;
}

Status preparePythonShim(const QString &binDir, const QString &python)
{
    if (!QDir().mkpath(binDir))
        return Error::make(ErrorCode::IoError, u"cannot create the folder %1"_s.arg(binDir));
    const QStringList systemPath = QString::fromLatin1(TaskSearchPath).split(u':');
    if (!QStandardPaths::findExecutable(u"python"_s, systemPath).isEmpty())
        return Ok{};
    const QString target = QFileInfo(python).isAbsolute()
                               ? python
                               : QStandardPaths::findExecutable(python, systemPath);
    if (target.isEmpty())
        return Ok{}; // no Python at all: the command says so itself
    const QString link = binDir + u"/python"_s;
    QFile::remove(link);
    if (!QFile::link(target, link))
        return Error::make(ErrorCode::IoError, u"cannot link %1 to %2"_s.arg(link, target));
    return Ok{};
}

SandboxSpec taskSandboxSpec(const TaskLease &lease,
                            const TaskPaths &paths,
                            const QString &venvDir,
                            const SandboxPolicy &policy)
{
    SandboxSpec spec;
    spec.policy = policy;
    spec.readOnlyPaths << paths.datasetDir << paths.binDir;
    if (lease.kind == TaskLease::Kind::Ddl)
        spec.readOnlyPaths << paths.codeDir << paths.runnerFile;
    else
        spec.writablePaths << paths.codeDir; // `git clone`, build folders: as in a container
    if (!venvDir.isEmpty())
        spec.readOnlyPaths << venvDir;
    spec.writablePaths << paths.outputDir << paths.scratchDir;
    if (!paths.checkpointDir.isEmpty())
        spec.writablePaths << paths.checkpointDir;
    spec.scratchDir = paths.scratchDir;
    spec.workingDir = paths.codeDir;
    spec.gpuDevices = lease.gpus > 0;
    if (lease.gpus == 0 && lease.memoryMb > 0)
        spec.dataLimitBytes = (2 * lease.memoryMb + 1024) * 1024 * 1024;
    spec.processLimit = TaskProcessAllowance;
    spec.shmBytes = qint64(lease.shmMb) * 1024 * 1024;
    return spec;
}

QByteArray ddlRunnerScript()
{
    QFile resource(u":/ddl/worker/ddl_runner.py"_s);
    if (!resource.open(QIODevice::ReadOnly))
        return {};
    return resource.readAll();
}

TaskProcess::TaskProcess(QObject *parent)
    : TaskExecution(parent)
{
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.setInputChannelMode(QProcess::ManagedInputChannel);
    processtree::makeSessionLeader(m_process);
    m_killTimer.setSingleShot(true);
    connect(&m_process, &QProcess::started, this, &TaskProcess::handleStarted);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &TaskProcess::handleReadyRead);
    connect(&m_process, &QProcess::readyReadStandardError, this,
            &TaskProcess::handleReadyReadError);
    connect(&m_process, &QProcess::finished, this, &TaskProcess::handleFinished);
    connect(&m_process, &QProcess::errorOccurred, this, &TaskProcess::handleErrorOccurred);
    connect(&m_killTimer, &QTimer::timeout, this, &TaskProcess::handleGraceExpired);
}

TaskProcess::~TaskProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.disconnect(this);
        processtree::killTree(m_pid);
        m_process.waitForFinished(2000);
    }
    if (!m_containerName.isEmpty() && !m_done)
        m_podman.remove(m_containerName);
}

bool TaskProcess::setupContainer(const LaunchSpec &spec)
{
    const auto fail = [this](const QString &message) {
        m_done = true;
        emit finished(-1, message);
        return false;
    };
    if (const Status image = PodmanRuntime::checkImageReference(spec.image); !image)
        return fail(image.error().message);
    // Every folder podman binds must exist; the task's bin folder stays empty (the image's own
    // python is the task's).
    for (const QString &dir : {spec.sandboxSpec.scratchDir, spec.paths.binDir}) {
        if (!dir.isEmpty() && !QDir().mkpath(dir))
            return fail(u"cannot create the folder %1"_s.arg(dir));
    }
    QString program;
    QStringList arguments;
    if (spec.kind == TaskLease::Kind::Ddl) {
        program = u"python3"_s;
        arguments = {u"-u"_s,
                     spec.paths.runnerFile,
                     spec.paths.codeDir,
                     spec.paths.datasetDir,
                     spec.paths.outputDir};
    } else {
        // bash where the image has it (OpenPAI commands are written for it), else sh.
        program = u"/bin/sh"_s;
        arguments = {u"-c"_s,
                     u"if command -v bash >/dev/null 2>&1; then exec bash -c \"$1\"; "
                     u"else exec sh -c \"$1\"; fi"_s,
                     u"sh"_s,
                     spec.command};
    }
    // The environment goes through a file of the task folder, which the task does not see:
    // podman's command line is readable by every user of the machine.
    ContainerSpec container;
    container.image = spec.image;
    container.name = spec.containerName;
    container.envFile = spec.paths.taskDir + u"/container.env"_s;
    container.sandbox = spec.sandboxSpec;
    container.cpuCores = spec.cpuCores;
    container.memoryBytes = spec.memoryBytes;
    container.gpus = spec.gpus;
    QProcessEnvironment environment = spec.environment;
    // The container has only its GPUs' nodes, which CUDA numbers from 0.
    QStringList visible;
    for (qsizetype i = 0; i < spec.gpus.size(); ++i)
        visible << QString::number(i);
    environment.insert(u"CUDA_VISIBLE_DEVICES"_s, visible.join(u','));
    if (spec.cpuCores.isEmpty())
        environment.remove(u"DDL_CPU_CORES"_s);
    else
        environment.insert(u"DDL_CPU_CORES"_s, cpuaffinity::format(spec.cpuCores));
    QByteArray lines;
    const QStringList keys = environment.keys();
    for (const QString &key : keys) {
        const QString value = environment.value(key);
        if (value.contains(u'\n'))
            continue; // an env file holds one line per variable
        lines += key.toUtf8() + '=' + value.toUtf8() + '\n';
    }
    QFile envFile(container.envFile);
    if (!envFile.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        !envFile.setPermissions(QFile::ReadOwner | QFile::WriteOwner) ||
        envFile.write(lines) != lines.size())
        return fail(u"cannot write the task's environment to %1"_s.arg(container.envFile));
    envFile.close();

    m_podman = spec.podman;
    m_containerName = container.name;
    m_process.setProgram(m_podman.program());
    m_process.setArguments(m_podman.runArguments(container, program, arguments));
    return true;
}

void TaskProcess::start(const LaunchSpec &spec)
{
    // The sandbox and podman bind it: it must exist (TaskRunner made it; a bare start has not).
    if (!spec.paths.checkpointDir.isEmpty())
        QDir().mkpath(spec.paths.checkpointDir);
    if (!spec.image.isEmpty()) {
        if (spec.kind == TaskLease::Kind::Ddl && !writeRunner(spec.paths.runnerFile))
            return;
        m_process.setWorkingDirectory(spec.paths.codeDir);
        if (!setupContainer(spec))
            return;
        m_process.start();
        m_process.closeWriteChannel();
        return;
    }
    QString program;
    QStringList arguments;
    if (spec.kind == TaskLease::Kind::Ddl) {
        const QString runnerPath = spec.paths.runnerFile;
        if (!writeRunner(runnerPath))
            return;
        program = spec.python;
        arguments = {
            u"-u"_s, runnerPath, spec.paths.codeDir, spec.paths.datasetDir, spec.paths.outputDir};
    } else {
        // OpenPAI commands are written for bash (`source`, arrays); /bin/sh where it is missing.
        const QString bash = QStandardPaths::findExecutable(
            u"bash"_s, QString::fromLatin1(TaskSearchPath).split(u':'));
        program = bash.isEmpty() ? u"/bin/sh"_s : bash;
        arguments = {u"-c"_s, spec.command};
    }
    if (const Status shim = preparePythonShim(spec.paths.binDir, spec.python); !shim) {
        m_done = true;
        emit finished(-1, shim.error().message);
        return;
    }
    m_process.setWorkingDirectory(spec.paths.codeDir);
    QProcessEnvironment environment = spec.environment;
    if (spec.cpuCores.isEmpty())
        environment.remove(u"DDL_CPU_CORES"_s);
    else
        environment.insert(u"DDL_CPU_CORES"_s, cpuaffinity::format(spec.cpuCores));
    // Before the sandbox's limits: bubblewrap itself runs on the task's cores.
    cpuaffinity::pinChild(m_process, spec.cpuCores);
    m_sandbox = spec.sandbox;
    if (m_sandbox.isEnabled() && spec.sandboxSpec.gpuDevices) {
        // The sandbox shows only the granted GPUs' nodes, which CUDA numbers from 0 (PCI order,
        // which is nvidia-smi's): as in a container, the task's GPUs are 0..n-1.
        QStringList visible;
        for (qsizetype i = 0; i < spec.sandboxSpec.gpuMinors.size(); ++i)
            visible << QString::number(i);
        environment.insert(u"CUDA_VISIBLE_DEVICES"_s, visible.join(u','));
    }
    m_process.setProcessEnvironment(environment);
    if (m_sandbox.isEnabled()) {
        if (!spec.sandboxSpec.scratchDir.isEmpty() && !QDir().mkpath(spec.sandboxSpec.scratchDir)) {
            m_done = true;
            emit finished(
                -1, u"cannot create the scratch folder %1"_s.arg(spec.sandboxSpec.scratchDir));
            return;
        }
        m_sandbox.setup(m_process, spec.sandboxSpec, program, arguments);
    } else {
        m_process.setProgram(program);
        m_process.setArguments(arguments);
    }
    m_process.start();
    // The task reads no input: it sees end-of-file rather than a pipe that never speaks.
    m_process.closeWriteChannel();
}

QString TaskProcess::describe() const
{
    return u"pid %1"_s.arg(m_pid);
}

bool TaskProcess::writeRunner(const QString &path)
{
    QFile runner(path);
    const QByteArray script = ddlRunnerScript();
    if (script.isEmpty() || !runner.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        runner.write(script) != script.size()) {
        m_done = true;
        emit finished(-1, u"cannot write the Python runner to %1"_s.arg(path));
        return false;
    }
    return true;
}

void TaskProcess::handleStarted()
{
    m_pid = m_process.processId();
    qCDebug(lcWorkerProcess) << "started process group" << m_pid;
    emit started();
}

void TaskProcess::terminate(int graceMs)
{
    if (m_process.state() == QProcess::NotRunning || m_pid <= 0)
        return;
    if (!m_containerName.isEmpty()) {
        // The container's processes are conmon's children, not podman's: podman kill reaches
        // them in their PID namespace.
        m_podman.signal(m_containerName, SIGTERM);
        m_killTimer.start(graceMs);
        return;
    }
    // SIGTERM to bubblewrap itself would end the sandbox at once, without a grace period; the
    // processes inside get it instead. Before bubblewrap has made the sandbox, the plain group
    // signal ends the start.
    if (!m_sandbox.isEnabled() || !m_sandbox.terminate(m_pid))
        processtree::terminateTree(m_pid);
    m_killTimer.start(graceMs);
}

void TaskProcess::handleGraceExpired()
{
    if (m_pid > 0) {
        qCInfo(lcWorkerProcess) << "process group" << m_pid
                                << "still running after SIGTERM; sending SIGKILL";
        if (!m_containerName.isEmpty())
            m_podman.signal(m_containerName, SIGKILL);
        processtree::killTree(m_pid);
    }
}

void TaskProcess::handleReadyRead()
{
    const QByteArray bytes = m_process.readAllStandardOutput();
    if (!bytes.isEmpty())
        emit output(bytes, LogSource::Stdout);
}

void TaskProcess::handleReadyReadError()
{
    const QByteArray bytes = m_process.readAllStandardError();
    if (!bytes.isEmpty())
        emit output(bytes, LogSource::Stderr);
}

void TaskProcess::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_done)
        return;
    m_done = true;
    m_killTimer.stop();
    handleReadyRead();
    handleReadyReadError();
    // Whatever the first process left behind (daemons, background jobs) ends with it.
    if (m_pid > 0 && processtree::treeAlive(m_pid))
        processtree::killTree(m_pid);
    if (!m_containerName.isEmpty()) {
        // --rm removes a container that ended by itself; one whose podman was killed stays.
        m_podman.remove(m_containerName);
        if (status == QProcess::NormalExit && exitCode >= 125 && exitCode <= 127) {
            emit finished(exitCode,
                          u"exit %1 (podman could not run the container; its message is in the "
                          u"task's log)"_s.arg(exitCode));
            return;
        }
    }
    if (status == QProcess::CrashExit) {
        emit finished(-1, u"killed by a signal"_s);
        return;
    }
    // bubblewrap and podman report a task that a signal ended as 128 + the signal's number.
    if ((m_sandbox.isEnabled() || !m_containerName.isEmpty()) && exitCode > 128 &&
        exitCode < 128 + 65) {
        emit finished(
            exitCode,
            u"exit %1 (in the sandbox: killed by signal %2)"_s.arg(exitCode).arg(exitCode - 128));
        return;
    }
    emit finished(exitCode, u"exit %1"_s.arg(exitCode));
}

void TaskProcess::handleErrorOccurred(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || m_done)
        return;
    m_done = true;
    emit finished(-1, u"cannot start %1: %2"_s.arg(m_process.program(), m_process.errorString()));
}

} // namespace ddl::worker
