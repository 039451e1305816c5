#include "slurmstep.h"

#include "runner/taskprocess.h"
#include "slurm/slurmallocation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {
constexpr int PollIntervalMs = 100;
constexpr qint64 ReadPieceBytes = 256 * 1024;
// What one look takes from a stream, so that a step writing fast does not hold the event loop.
constexpr qint64 ReadPerPollBytes = 4 * 1024 * 1024;

bool writeFile(const QString &path, const QByteArray &bytes, QFileDevice::Permissions permissions)
{
    // Made with its permissions, never readable by others for a moment (a shared file system).
    QFile::remove(path);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate, permissions)
        || file.write(bytes) != bytes.size())
        return false;
    return file.setPermissions(permissions);
}
} // namespace

SlurmStep::SlurmStep(const TaskLease &lease, SlurmAllocation *allocation, QObject *parent)
    : TaskExecution(parent)
    , m_lease(lease)
    , m_allocation(allocation)
{
    m_pollTimer.setInterval(PollIntervalMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &SlurmStep::poll);
}

SlurmStep::~SlurmStep()
{
    if (m_allocation)
        m_allocation->memberGone(m_lease.taskId);
}

void SlurmStep::start(const LaunchSpec &spec)
{
    if (!m_allocation) {
        finish(-1, u"no Slurm job was planned for task %1"_s.arg(m_lease.taskId));
        return;
    }
    const QString folder = spec.paths.taskDir + u"/slurm"_s;
    m_files = SlurmStepFiles::inFolder(folder);
    SlurmStepLaunch launch;
    launch.codeDir = spec.paths.codeDir;
    if (spec.kind == TaskLease::Kind::Ddl) {
        const QByteArray runner = ddlRunnerScript();
        if (runner.isEmpty() ||
            !writeFile(spec.paths.runnerFile, runner, QFile::ReadOwner | QFile::WriteOwner)) {
            finish(-1, u"cannot write the Python runner to %1"_s.arg(spec.paths.runnerFile));
            return;
        }
        launch.argv = {spec.python,
                       u"-u"_s,
                       spec.paths.runnerFile,
                       spec.paths.codeDir,
                       spec.paths.datasetDir,
                       spec.paths.outputDir};
    } else {
        launch.argv = {u"/bin/bash"_s, u"-c"_s, spec.command};
    }
    if (const Status shim = preparePythonShim(spec.paths.binDir, spec.python); !shim) {
        finish(-1, shim.error().message);
        return;
    }
    launch.environment = spec.environment;
    launch.workerAddress = spec.environment.value(u"PAI_CURRENT_CONTAINER_IP"_s);
    launch.memberPorts = m_allocation->memberPorts();
    launch.memberHostKeys = m_allocation->memberHostKeys();
    launch.stepIndex = m_allocation->indexOf(m_lease.taskId);
    // The environment holds the job's variables: readable by the worker's user only.
    const auto ownerOnly = QFile::ReadOwner | QFile::WriteOwner;
    if (!QDir().mkpath(folder) ||
        !writeFile(m_files.envFile, slurmStepEnvironment(launch), ownerOnly) ||
        !writeFile(m_files.script, slurmStepScript(launch, m_files), ownerOnly | QFile::ExeOwner)) {
        finish(-1, u"cannot write the Slurm step files into %1"_s.arg(folder));
        return;
    }
    for (const QString &stale :
         {m_files.startedFile, m_files.exitFile, m_files.stdoutFile, m_files.stderrFile})
        QFile::remove(stale);
    m_ready = true;
    m_pollTimer.start();
    m_allocation->stepReady(this);
}

void SlurmStep::terminate(int graceMs)
{
    Q_UNUSED(graceMs) // Slurm's own KillWait is the grace of a scancel
    if (m_done)
        return;
    if (m_allocation && m_allocation->isSubmitted()) {
        m_allocation->cancel();
        return; // ends when squeue sees the job end
    }
    if (m_allocation)
        m_allocation->cancel();
    finish(-1, u"cancelled before Slurm started it"_s);
}

bool SlurmStep::isRunning() const
{
    return m_started && !m_done;
}

QString SlurmStep::describe() const
{
    if (m_allocation && m_allocation->isSubmitted())
        return u"Slurm job %1, step of task %2"_s.arg(m_allocation->jobId()).arg(m_lease.taskId);
    return u"Slurm step of task %1 (not submitted)"_s.arg(m_lease.taskId);
}

void SlurmStep::handleJobWaiting(const QString &reason)
{
    if (m_started || m_done || reason == m_lastReason)
        return;
    m_lastReason = reason;
    emit waiting(reason);
}

void SlurmStep::handleJobEnded(const QString &description)
{
    if (m_done)
        return;
    poll(); // the exit file may have come since the last look
    if (!m_done)
        finish(-1, description + u" before the task's step reported its exit status"_s);
}

void SlurmStep::handleSubmitFailed(const QString &message)
{
    finish(-1, message);
}

void SlurmStep::poll()
{
    if (m_done)
        return;
    if (!m_started && QFileInfo::exists(m_files.startedFile)) {
        m_started = true;
        emit started();
    }
    readNew(m_files.stdoutFile, m_stdoutOffset, LogSource::Stdout, ReadPerPollBytes);
    readNew(m_files.stderrFile, m_stderrOffset, LogSource::Stderr, ReadPerPollBytes);
    QFile exitFile(m_files.exitFile);
    if (!exitFile.open(QIODevice::ReadOnly))
        return;
    bool ok = false;
    const int code = exitFile.read(32).trimmed().toInt(&ok);
    // All the step wrote before its exit status was written.
    readNew(m_files.stdoutFile, m_stdoutOffset, LogSource::Stdout, -1);
    readNew(m_files.stderrFile, m_stderrOffset, LogSource::Stderr, -1);
    if (!m_started) {
        // The step ended before its script marked the start (it could not run at all).
        m_started = true;
        emit started();
    }
    finish(ok ? code : -1,
           ok ? u"exit code %1 (Slurm job %2)"_s.arg(code).arg(m_allocation ? m_allocation->jobId()
                                                                            : 0)
              : u"the step's exit status is unreadable"_s);
}

void SlurmStep::readNew(const QString &path, qint64 &offset, LogSource source, qint64 maxBytes)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() <= offset)
        return;
    file.seek(offset);
    // Pieces, never the whole rest in memory: the log streamer writes each to the task's log.
    qint64 taken = 0;
    while (maxBytes < 0 || taken < maxBytes) {
        const QByteArray piece = file.read(ReadPieceBytes);
        if (piece.isEmpty())
            return;
        offset += piece.size();
        taken += piece.size();
        emit output(piece, source);
    }
}

void SlurmStep::finish(int exitCode, const QString &description)
{
    if (m_done)
        return;
    m_done = true;
    m_pollTimer.stop();
    emit finished(exitCode, description);
}

} // namespace ddl::worker
