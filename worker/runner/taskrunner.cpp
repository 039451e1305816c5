#include "taskrunner.h"

#include "agent/hostinfo.h"
#include "api/apiclient.h"
#include "api/blobupload.h"
#include "cache/blobcache.h"
#include "container/imageloader.h"
#include "jobspec/jobspec.h"
#include "core/sha256.h"
#include "process/cpuaffinity.h"
#include "runner/checkpointsync.h"
#include "runner/logstreamer.h"
#include "runner/venvmanager.h"
#include "wire/jobstate.h"
#include "workerlogging.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QTimer>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

constexpr int LogDrainTimeoutMs = 30000;
constexpr int StateReportAttempts = 30;
constexpr int StateReportRetryMs = 2000;
// The last checkpoint upload of a failed task; a preempted one has what is left of its notice,
// at least MinPreemptedCheckpointMs.
constexpr int FailedCheckpointTimeoutMs = 120000;
constexpr int MinPreemptedCheckpointMs = 10000;

} // namespace

TaskRunner::TaskRunner(const TaskLease &lease,
                       const QList<int> &gpuIndices,
                       const QList<int> &cpuCores,
                       const TaskServices &services,
                       QObject *parent)
    : QObject(parent)
    , m_lease(lease)
    , m_gpuIndices(gpuIndices)
    , m_cpuCores(cpuCores)
    , m_services(services)
    , m_paths(TaskPaths::forTask(services.tasksRoot, lease.taskId))
    , m_python(services.python)
{
}

// Pins live in the cache's memory only: a runner destroyed with the worker leaves none behind.
TaskRunner::~TaskRunner() = default;

QString TaskRunner::pinOwner() const
{
    return u"task:%1"_s.arg(m_lease.taskId);
}

bool TaskRunner::stillPreparing() const
{
    return m_phase == Phase::Preparing && !m_cancelled;
}

void TaskRunner::start()
{
    // Kept in the cache while the task may use them; the cache's janitor evicts only the rest.
    m_services.cache->pin(pinOwner(),
                          {m_lease.packageSha256, m_lease.datasetSha256, m_lease.datasetManifest,
                           m_lease.imageManifest, m_lease.checkpointManifest});
    // A folder left by an earlier run of the worker under the same id is stale.
    if (QFileInfo::exists(m_paths.taskDir))
        QDir(m_paths.taskDir).removeRecursively();
    if (!QDir().mkpath(m_paths.outputDir) || !QDir().mkpath(m_paths.checkpointDir)
        || !QDir().mkpath(m_paths.scratchDir)) {
        failPreparation(u"cannot create the task folder %1"_s.arg(m_paths.taskDir));
        return;
    }
    m_log = new LogStreamer(
        m_services.client, m_lease.taskId, m_paths.logFile, m_services.logFlushIntervalMs, this);
    const Status opened = m_log->open();
    if (!opened) {
        failPreparation(opened.error().message);
        return;
    }
    m_checkpoints = new CheckpointSync(
        m_services.client,
        m_lease,
        m_paths.checkpointDir,
        m_paths.taskDir + u"/checkpoint-hashes"_s,
        m_paths.taskDir + u"/checkpoint-staging"_s, // bound into no sandbox
        [this](const QString &line) { m_log->appendLine(line); },
        this);
    const QString gpus = m_gpuIndices.isEmpty() ? u"no GPU"_s : u"GPU %1"_s.arg([this] {
        QStringList list;
        for (int index : m_gpuIndices)
            list << QString::number(index);
        return list.join(u',');
    }());
    const QString cpus = m_cpuCores.isEmpty()
                             ? u"CPUs not pinned"_s
                             : u"CPU cores %1"_s.arg(cpuaffinity::format(m_cpuCores));
    m_log->appendLine(
        u"task %1 of job %2 (%3, role %4 #%5, attempt %6) on worker %7, %8, %9"_s
            .arg(m_lease.taskId)
            .arg(m_lease.jobName.isEmpty() ? m_lease.jobUuid : m_lease.jobName,
                 TaskLease::kindName(m_lease.kind),
                 m_lease.role)
            .arg(m_lease.roleIndex)
            .arg(m_lease.attempt)
            .arg(m_services.workerName, gpus, cpus));
    qCInfo(lcWorkerRunner) << "task" << m_lease.taskId << "preparing in" << m_paths.taskDir;
    fetchPackage();
}

void TaskRunner::fetchPackage()
{
    if (m_lease.packageSha256.isEmpty()) {
        QDir().mkpath(m_paths.codeDir);
        fetchDataset();
        return;
    }
    m_log->appendLine(u"fetching code package %1"_s.arg(m_lease.packageSha256));
    m_services.cache->fetchBlob(m_lease.packageSha256, this, [this](const Result<QString> &blob) {
        if (!stillPreparing())
            return;
        if (!blob) {
            failPreparation(u"cannot fetch the code package %1: %2"_s.arg(m_lease.packageSha256,
                                                                          blob.error().message));
            return;
        }
        extractPackage(*blob);
    });
}

void TaskRunner::extractPackage(const QString &blob)
{
    auto *watcher = new QFutureWatcher<Status>(this);
    connect(watcher, &QFutureWatcher<Status>::finished, this, [this, watcher] {
        watcher->deleteLater();
        if (!stillPreparing())
            return;
        const Status status = watcher->result();
        if (!status) {
            failPreparation(u"cannot extract the code package %1: %2"_s.arg(
                m_lease.packageSha256, status.error().message));
            return;
        }
        fetchDataset();
    });
    watcher->setFuture(QtConcurrent::run(extractArchive, blob, m_paths.codeDir));
}

void TaskRunner::fetchDataset()
{
    if (!m_lease.datasetManifest.isEmpty()) {
        fetchManifestDataset();
        return;
    }
    if (m_lease.datasetSha256.isEmpty()) {
        QDir().mkpath(m_paths.datasetDir);
        restoreCheckpoint();
        return;
    }
    m_log->appendLine(u"fetching dataset %1"_s.arg(m_lease.datasetSha256));
    m_services.cache->fetchDataset(
        m_lease.datasetSha256, this, [this](const Result<QString> &folder) {
            if (!stillPreparing())
                return;
            if (!folder) {
                failPreparation(u"cannot fetch the dataset: %1"_s.arg(folder.error().message));
                return;
            }
            m_paths.datasetDir = *folder;
            restoreCheckpoint();
        });
}

void TaskRunner::fetchManifestDataset()
{
    m_log->appendLine(u"fetching dataset (manifest %1)"_s.arg(m_lease.datasetManifest));
    m_services.cache->fetchManifestDataset(
        m_lease.datasetManifest, this, [this](const Result<QString> &folder) {
            if (!stillPreparing())
                return;
            if (!folder) {
                failPreparation(u"cannot fetch the dataset: %1"_s.arg(folder.error().message));
                return;
            }
            m_paths.datasetDir = *folder;
            restoreCheckpoint();
        });
}

void TaskRunner::restoreCheckpoint()
{
    m_checkpoints->restore(m_services.cache, [this](const Status &restored) {
        if (!stillPreparing())
            return;
        if (!restored) {
            failPreparation(u"cannot lay out the checkpoint of attempt %1 (manifest %2): %3"_s.arg(
                QString::number(m_lease.checkpointAttempt), m_lease.checkpointManifest,
                restored.error().message));
            return;
        }
        prepareEnvironment();
    });
}

bool TaskRunner::runsInContainer() const
{
    // GPUs reach containers through the CDI spec the worker wrote; without one a GPU task keeps
    // the sandbox, where it sees its devices, rather than running in its image without them.
    return !m_lease.image.isEmpty() && m_services.podman.isAvailable() &&
           (m_lease.gpus == 0 || m_services.podman.hasGpuDevices());
}

qint64 TaskRunner::processId() const
{
    return m_phase == Phase::Running && m_process && m_process->isRunning() ? m_process->processId()
                                                                            : 0;
}

QString TaskRunner::containerName() const
{
    return runsInContainer() ? PodmanRuntime::containerName(m_lease.taskId) : QString();
}

void TaskRunner::prepareEnvironment()
{
    // A ddl:// image exists only as the layers the server keeps: no sandbox can stand in for it.
    if (JobSpec::needsContainer(m_lease.image) && !runsInContainer()) {
        failPreparation(
            m_services.podman.isAvailable()
                ? u"image %1 cannot run here with GPUs: this worker gives none to containers "
                  u"(no CDI spec: its GPUs were declared with --gpus, or no /dev/nvidiaN was "
                  u"found; its log says which), and a pushed image runs only in a "
                  u"container"_s.arg(m_lease.image)
                : u"image %1 runs only in a container, and this worker runs none (ddl-worker "
                  u"--container-runtime podman)"_s.arg(m_lease.image));
        return;
    }
    // An image brings its own Python and packages: a venv of the worker's Python would not run
    // in it.
    if (runsInContainer()) {
        if (!JobSpec::needsContainer(m_lease.image))
            launch();
        else if (m_lease.imageManifest.isEmpty() || !m_services.images)
            failPreparation(u"the lease names no layers for image %1; the server is older than "
                            u"this worker or lost the image: push it again"_s.arg(m_lease.image));
        else
            fetchImage();
        return;
    }
    const QString requirements = m_paths.codeDir + u"/requirements.txt"_s;
    if (!QFileInfo(requirements).isFile()) {
        launch();
        return;
    }
    m_services.venvs->prepare(
        requirements,
        this,
        [this](const QByteArray &bytes) { m_log->append(bytes); },
        [this](const Result<QString> &venv) {
            if (!stillPreparing())
                return;
            if (!venv) {
                failPreparation(venv.error().message);
                return;
            }
            m_venvDir = *venv;
            m_python = VenvManager::pythonOf(m_venvDir);
            launch();
        });
}

void TaskRunner::fetchImage()
{
    m_log->appendLine(
        u"fetching image %1 (manifest %2)"_s.arg(m_lease.image, m_lease.imageManifest));
    m_services.cache->fetchManifestDataset(
        m_lease.imageManifest, this, [this](const Result<QString> &folder) {
            if (!stillPreparing())
                return;
            if (!folder) {
                failPreparation(
                    u"cannot fetch image %1: %2"_s.arg(m_lease.image, folder.error().message));
                return;
            }
            m_services.images->load(
                *folder, m_lease.image, this,
                [this](const QString &line) { reportEvent(line); },
                [this](const Result<ImageLoader::Loaded> &loaded) {
                    if (!stillPreparing())
                        return;
                    if (!loaded) {
                        failPreparation(loaded.error().message);
                        return;
                    }
                    if (loaded->loadedNow)
                        reportEvent(u"image loaded in %1 s"_s.arg(loaded->seconds, 0, 'f', 2));
                    else
                        m_log->appendLine(u"image %1 is on this worker already"_s.arg(
                            m_lease.image));
                    m_imageId = loaded->imageId;
                    launch();
                });
        });
}

void TaskRunner::launch()
{
    // The server's port is the one in the peers' host lists; a free one only when it gave none.
    const Result<quint16> port = m_lease.port > 0 ? Result<quint16>(quint16(m_lease.port))
                                                  : allocateFreePort();
    if (!port) {
        failPreparation(port.error().message);
        return;
    }
    LaunchSpec spec;
    spec.kind = m_lease.kind;
    spec.python = m_python;
    spec.command = m_lease.command;
    spec.paths = m_paths;
    spec.environment = taskEnvironment(
        m_lease,
        m_paths,
        {m_services.advertiseAddress, *port, m_gpuIndices, m_venvDir, m_services.preemptNoticeS});
    spec.sandbox = m_services.sandbox;
    spec.sandboxSpec = taskSandboxSpec(m_lease, m_paths, m_venvDir, m_services.sandboxPolicy);
    // The device nodes (and CDI device names) of the granted GPUs go by minor number.
    QList<int> minors;
    for (const int index : std::as_const(m_gpuIndices))
        minors << m_services.gpuMinors.value(index, index);
    spec.sandboxSpec.gpuMinors = minors;
    spec.cpuCores = m_cpuCores;
    if (runsInContainer()) {
        spec.image = m_imageId.isEmpty() ? m_lease.image : m_imageId;
        spec.containerName = PodmanRuntime::containerName(m_lease.taskId);
        spec.gpus = minors;
        spec.podman = m_services.podman;
        spec.memoryBytes = m_lease.memoryMb * 1024 * 1024;
    }
    // pip's last unfinished line (if any) ends before the task's own output begins.
    m_log->flushPartialLines();
    m_process = m_services.executionFactory ? m_services.executionFactory(m_lease, this)
                                            : new TaskProcess(this);
    connect(m_process, &TaskExecution::started, this, &TaskRunner::handleProcessStarted);
    connect(m_process, &TaskExecution::output, m_log, &LogStreamer::append);
    connect(m_process, &TaskExecution::finished, this, &TaskRunner::handleProcessFinished);
    connect(m_process, &TaskExecution::waiting, this, &TaskRunner::handleWaiting);
    if (m_services.executionFactory) {
        if (!m_lease.image.isEmpty())
            m_log->appendLine(u"image %1 not used: Slurm steps run on the node's own system"_s.arg(
                m_lease.image));
    } else if (runsInContainer()) {
        m_log->appendLine(u"container: podman, image %1, %2"_s.arg(
            m_lease.image,
            m_services.sandboxPolicy.network ? u"network allowed"_s : u"no network"_s));
    } else {
        if (!m_lease.image.isEmpty() && !m_services.podman.isAvailable())
            m_log->appendLine(u"image %1 not used: this worker runs no containers (ddl-worker "
                              u"--container-runtime podman)"_s.arg(m_lease.image));
        else if (!m_lease.image.isEmpty())
            m_log->appendLine(u"image %1 not used: GPUs cannot be given to containers yet, so a "
                              u"task with GPUs runs in the sandbox"_s.arg(m_lease.image));
        m_log->appendLine(u"sandbox: "_s + m_services.sandbox.describe(m_services.sandboxPolicy));
    }
    if (m_lease.kind == TaskLease::Kind::Ddl)
        m_log->appendLine(u"running %1(dataset_dir, model_output_dir) with %2"_s.arg(
            m_lease.env.value(u"DDL_ENTRY_POINT"_s, u"main.main"_s),
            runsInContainer() ? u"the image's python3"_s : m_python));
    else
        m_log->appendLine(u"running: %1"_s.arg(m_lease.command));
    m_process->start(spec);
}

void TaskRunner::handleProcessStarted()
{
    if (m_phase != Phase::Preparing)
        return;
    m_phase = Phase::Running;
    qCInfo(lcWorkerRunner).noquote() << "task" << m_lease.taskId << "running,"
                                      << m_process->describe();
    m_checkpoints->startPeriodic(m_services.checkpointIntervalS);
    m_runningReportInFlight = true;
    reportState(stateName(JobState::Running), std::nullopt, {}, [this] {
        m_runningReportInFlight = false;
        if (m_afterRunningReport)
            std::exchange(m_afterRunningReport, nullptr)();
    });
    // A cancel (or preemption) that came while the process was starting is carried out now.
    if (m_cancelled)
        m_process->terminate(m_preempted.isEmpty() ? m_services.killGraceMs
                                                   : m_services.preemptNoticeS * 1000);
}

void TaskRunner::handleProcessFinished(int exitCode, const QString &description)
{
    const bool started = m_phase == Phase::Running;
    qCInfo(lcWorkerRunner).noquote() << "task" << m_lease.taskId << "finished:" << description;
    m_log->flushPartialLines();
    m_log->appendLine(u"process finished: %1"_s.arg(description));
    // -1: no exit status (not started, or killed by a signal).
    const std::optional<int> code = exitCode >= 0 ? std::optional<int>(exitCode) : std::nullopt;
    // A preempted or failed task runs again: what it saved goes to the server first, so that
    // the next attempt starts from it. A cancelled or succeeded one needs none.
    const bool runsAgain = started && (!m_preempted.isEmpty() || (!m_cancelled && code != 0));
    if (!runsAgain) {
        m_checkpoints->stop();
        concludeProcess(started, code, description);
        return;
    }
    m_savingCheckpoint = true;
    m_checkpoints->finalUpload(finalCheckpointTimeoutMs(), [this, started, code, description] {
        concludeProcess(started, code, description);
    });
}

void TaskRunner::concludeProcess(bool started,
                                 std::optional<int> code,
                                 const QString &description)
{
    if (!m_preempted.isEmpty()) {
        finishTask(stateName(JobState::Stopped), code, m_preempted, false);
    } else if (!m_overLimit.isEmpty()) {
        finishTask(stateName(JobState::Failed), code, m_overLimit, false);
    } else if (m_cancelled) {
        finishTask(stateName(JobState::Stopped), code, u"cancelled"_s, false);
    } else if (!started) {
        finishTask(stateName(JobState::Failed), std::nullopt, description, false);
    } else if (code == 0) {
        finishTask(stateName(JobState::Succeeded), 0, {}, true);
    } else {
        finishTask(stateName(JobState::Failed),
                   code,
                   u"the task's process ended: %1"_s.arg(description),
                   true);
    }
}

int TaskRunner::finalCheckpointTimeoutMs() const
{
    if (m_preempted.isEmpty())
        return FailedCheckpointTimeoutMs;
    const qint64 left = qint64(m_services.preemptNoticeS) * 1000 - m_preemptedSince.elapsed();
    return int(std::max<qint64>(left, MinPreemptedCheckpointMs));
}

void TaskRunner::cancel()
{
    endEarly(EndKind::Cancelled, u"cancelled"_s, m_services.killGraceMs);
}

void TaskRunner::preempt(const QString &why)
{
    endEarly(EndKind::Preempted,
             u"preempted on worker %1: its owner needs the machine (%2)"_s.arg(
                 m_services.workerName, why),
             m_services.preemptNoticeS * 1000);
}

void TaskRunner::failOverLimit(const QString &why)
{
    endEarly(EndKind::OverLimit, why, m_services.killGraceMs);
}

bool TaskRunner::processEnded() const
{
    return m_savingCheckpoint || m_phase == Phase::Finishing || m_phase == Phase::Done;
}

void TaskRunner::endEarly(EndKind kind, const QString &why, int graceMs)
{
    if (m_phase == Phase::Finishing || m_phase == Phase::Done)
        return;
    if (m_savingCheckpoint) {
        // The process has ended and its last checkpoint is on its way: nothing is left to end
        // but that upload, which only the job's user (a cancel) may cut short.
        if (kind == EndKind::Cancelled && !m_cancelAbortedUpload) {
            m_cancelAbortedUpload = true;
            m_cancelled = true;
            qCInfo(lcWorkerRunner) << "task" << m_lease.taskId
                                   << "cancelled by the server during its last checkpoint upload";
            m_log->appendLine(u"cancelled: the last checkpoint upload stops"_s);
            m_checkpoints->abortFinal();
        }
        return;
    }
    if (m_cancelled)
        return;
    m_cancelled = true;
    QString state = stateName(JobState::Stopped);
    QString before = why;
    switch (kind) {
    case EndKind::Cancelled:
        before = u"cancelled before it started"_s;
        qCInfo(lcWorkerRunner) << "task" << m_lease.taskId << "cancelled by the server";
        if (m_log)
            m_log->appendLine(u"cancelled: ending the task's processes"_s);
        break;
    case EndKind::Preempted:
        m_preemptedSince.start();
        m_preempted = why;
        qCInfo(lcWorkerRunner).noquote() << "task" << m_lease.taskId << why;
        if (m_log)
            m_log->appendLine(u"%1: SIGTERM now, SIGKILL after %2 s"_s.arg(why).arg(graceMs / 1000));
        break;
    case EndKind::OverLimit:
        state = stateName(JobState::Failed);
        m_overLimit = why;
        qCWarning(lcWorkerRunner).noquote() << "task" << m_lease.taskId << "failed:" << why;
        if (m_log)
            m_log->appendLine(u"error: %1: ending the task's processes"_s.arg(why));
        break;
    }
    if (m_phase == Phase::Running) {
        m_process->terminate(graceMs);
    } else if (!m_process || !m_process->isRunning()) {
        // Still fetching or preparing: nothing runs yet, stop here.
        finishTask(state, std::nullopt, before, false);
    }
}

QString TaskRunner::taskDir() const
{
    return m_paths.taskDir;
}

QString TaskRunner::datasetDir() const
{
    return m_paths.datasetDir;
}

void TaskRunner::failPreparation(const QString &message)
{
    qCWarning(lcWorkerRunner).noquote() << "task" << m_lease.taskId << "failed:" << message;
    if (m_log)
        m_log->appendLine(u"error: "_s + message);
    finishTask(stateName(JobState::Failed), std::nullopt, message, false);
}

void TaskRunner::finishTask(const QString &state,
                            std::optional<int> exitCode,
                            const QString &message,
                            bool uploadOutputs)
{
    if (m_phase == Phase::Finishing || m_phase == Phase::Done)
        return;
    m_phase = Phase::Finishing;
    if (m_checkpoints)
        m_checkpoints->stop();
    // Its process has ended: the cache may evict its code and data again.
    m_services.cache->unpin(pinOwner());
    m_finalState = state;
    m_exitCode = exitCode;
    m_finalMessage = message;
    if (uploadOutputs)
        collectArtifacts();
    else
        drainLogAndReport();
}

void TaskRunner::collectArtifacts()
{
    using Artifacts = QList<Artifact>;
    auto *watcher = new QFutureWatcher<Artifacts>(this);
    connect(watcher, &QFutureWatcher<Artifacts>::finished, this, [this, watcher] {
        watcher->deleteLater();
        m_artifacts = watcher->result();
        m_nextArtifact = 0;
        if (m_artifacts.isEmpty()) {
            m_log->appendLine(u"no output files to upload"_s);
            drainLogAndReport();
            return;
        }
        m_log->appendLine(m_lease.outputPrefix.isEmpty()
                              ? u"uploading %1 output file(s)"_s.arg(m_artifacts.size())
                              : u"uploading %1 output file(s) into %2 of the job's artifacts"_s.arg(
                                    QString::number(m_artifacts.size()), m_lease.outputPrefix));
        uploadNextArtifact();
    });
    // Hashing large outputs happens off the event loop, which keeps heartbeats going.
    watcher->setFuture(QtConcurrent::run([outputDir = m_paths.outputDir] {
        Artifacts artifacts;
        const QDir root(outputDir);
        QDirIterator it(
            outputDir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QFileInfo info(it.next());
            Artifact artifact;
            artifact.filePath = info.filePath();
            artifact.relativePath = root.relativeFilePath(info.filePath());
            if (info.isSymLink()) {
                artifact.error = u"is a symbolic link; only regular files are uploaded"_s;
            } else {
                artifact.size = info.size();
                const Result<QString> digest = sha256OfFile(info.filePath());
                if (digest)
                    artifact.sha256 = *digest;
                else
                    artifact.error = digest.error().message;
            }
            artifacts.append(artifact);
        }
        std::sort(artifacts.begin(), artifacts.end(), [](const Artifact &a, const Artifact &b) {
            return a.relativePath < b.relativePath;
        });
        return artifacts;
    }));
}

void TaskRunner::uploadNextArtifact()
{
    while (m_nextArtifact < m_artifacts.size() && !m_artifacts.at(m_nextArtifact).error.isEmpty()) {
        const Artifact &skipped = m_artifacts.at(m_nextArtifact);
        m_log->appendLine(
            u"not uploading output/%1: %2"_s.arg(skipped.relativePath, skipped.error));
        ++m_nextArtifact;
    }
    if (m_nextArtifact >= m_artifacts.size()) {
        postArtifacts();
        return;
    }
    Artifact &artifact = m_artifacts[m_nextArtifact];
    auto *upload = new BlobUpload(m_services.client, artifact.filePath, artifact.sha256, this);
    connect(upload, &BlobUpload::finished, this, [this, upload] {
        upload->deleteLater();
        Artifact &artifact = m_artifacts[m_nextArtifact];
        // A server that restarts is gone for a moment: the output is sent again (the upload
        // resumes at the offset the server kept) rather than the finished task failed for it.
        if (!upload->result() && isTransient(upload->result().error())
            && ++artifact.tries < StateReportAttempts) {
            QTimer::singleShot(StateReportRetryMs, this, [this] { uploadNextArtifact(); });
            return;
        }
        if (!upload->result()) {
            artifact.error = upload->result().error().message;
            m_log->appendLine(
                u"cannot upload output/%1: %2"_s.arg(artifact.relativePath, artifact.error));
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: cannot upload output/%2: %3"_s.arg(m_lease.taskId)
                       .arg(artifact.relativePath, artifact.error);
            if (m_finalState == stateName(JobState::Succeeded)) {
                m_finalState = stateName(JobState::Failed);
                m_finalMessage = u"the task succeeded but its output %1 could not be uploaded: "
                                 u"%2"_s.arg(artifact.relativePath, artifact.error);
            }
        }
        ++m_nextArtifact;
        uploadNextArtifact();
    });
    upload->start();
}

void TaskRunner::postArtifacts()
{
    QJsonArray files;
    for (const Artifact &artifact : std::as_const(m_artifacts)) {
        if (!artifact.error.isEmpty())
            continue;
        files.append(QJsonObject{{u"path"_s, QString(m_lease.outputPrefix + artifact.relativePath)},
                                 {u"size"_s, artifact.size},
                                 {u"sha256"_s, artifact.sha256}});
    }
    if (files.isEmpty()) {
        drainLogAndReport();
        return;
    }
    ApiRequest *request = m_services.client->postJson(
        u"/v1/workers/tasks/%1/artifacts"_s.arg(m_lease.taskId), QJsonObject{{u"files"_s, files}});
    connect(request, &ApiRequest::finished, this, [this, request, count = files.size()] {
        request->deleteLater();
        if (!request->result() && isTransient(request->result().error())
            && ++m_postArtifactsTries < StateReportAttempts) {
            QTimer::singleShot(StateReportRetryMs, this, [this] { postArtifacts(); });
            return;
        }
        if (request->result()) {
            m_log->appendLine(u"%1 output file(s) uploaded"_s.arg(count));
            qCInfo(lcWorkerRunner)
                << "task" << m_lease.taskId << "uploaded" << count << "artifact(s)";
        } else {
            const QString message = request->result().error().message;
            m_log->appendLine(u"cannot register the output files: %1"_s.arg(message));
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: cannot register its artifacts: %2"_s.arg(m_lease.taskId).arg(message);
            if (m_finalState == stateName(JobState::Succeeded)) {
                m_finalState = stateName(JobState::Failed);
                m_finalMessage = u"the task succeeded but its outputs could not be registered: "
                                 u"%1"_s.arg(message);
            }
        }
        drainLogAndReport();
    });
}

void TaskRunner::drainLogAndReport()
{
    if (!m_log) {
        reportFinalState();
        return;
    }
    m_log->appendLine(u"final state %1%2"_s.arg(
        m_finalState, m_exitCode ? u" (exit code %1)"_s.arg(*m_exitCode) : QString()));
    connect(m_log,
            &LogStreamer::drained,
            this,
            &TaskRunner::reportFinalState,
            Qt::SingleShotConnection);
    m_log->drain(LogDrainTimeoutMs);
}

void TaskRunner::reportFinalState()
{
    // The final state must not overtake RUNNING on its way to the server.
    if (m_runningReportInFlight) {
        m_afterRunningReport = [this] { reportFinalState(); };
        return;
    }
    reportState(m_finalState, m_exitCode, m_finalMessage, [this] {
        m_phase = Phase::Done;
        emit finished(m_lease.taskId, m_finalState);
    });
}

void TaskRunner::handleWaiting(const QString &reason)
{
    if (m_phase == Phase::Preparing && !m_cancelled)
        reportEvent(reason, true);
}

void TaskRunner::reportEvent(const QString &message, bool waitingReason)
{
    m_log->appendLine(message);
    QJsonObject body{{u"message"_s, message}};
    if (waitingReason)
        body.insert(u"waiting_reason"_s, true);
    // Told once: the log has it whatever the server answers.
    ApiRequest *request = m_services.client->postJson(
        u"/v1/workers/tasks/%1/events"_s.arg(m_lease.taskId), body);
    connect(request, &ApiRequest::finished, this, [this, request] {
        request->deleteLater();
        if (!request->result()) {
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: the server did not take an event (%2)"_s.arg(m_lease.taskId)
                       .arg(request->result().error().message);
        }
    });
}

void TaskRunner::reportState(const QString &state,
                             std::optional<int> exitCode,
                             const QString &message,
                             std::function<void()> then,
                             int attempt)
{
    QJsonObject body{{u"state"_s, state}};
    body.insert(u"exit_code"_s, exitCode ? QJsonValue(*exitCode) : QJsonValue());
    body.insert(u"message"_s, message);
    // Not the task's failure: its job waits for another worker (server/jobs/jobprogress).
    if (!m_preempted.isEmpty() && isFinalState(state))
        body.insert(u"preempted"_s, true);
    ApiRequest *request =
        m_services.client->postJson(u"/v1/workers/tasks/%1/state"_s.arg(m_lease.taskId), body);
    connect(request,
            &ApiRequest::finished,
            this,
            [this, request, state, exitCode, message, then, attempt] {
                request->deleteLater();
                const Result<ApiResponse> &result = request->result();
                if (result) {
                    qCInfo(lcWorkerRunner).noquote()
                        << "task" << m_lease.taskId << "reported" << state;
                } else if (isTransient(result.error()) && attempt < StateReportAttempts) {
                    if (attempt == 1) {
                        qCWarning(lcWorkerRunner).noquote()
                            << u"task %1: cannot report %2 (%3); retrying"_s.arg(m_lease.taskId)
                                   .arg(state, result.error().message);
                    }
                    QTimer::singleShot(
                        StateReportRetryMs, this, [this, state, exitCode, message, then, attempt] {
                            reportState(state, exitCode, message, then, attempt + 1);
                        });
                    return;
                } else {
                    qCWarning(lcWorkerRunner).noquote()
                        << u"task %1: the server did not take state %2 (%3)"_s.arg(m_lease.taskId)
                               .arg(state, result.error().message);
                }
                if (then)
                    then();
            });
}

} // namespace ddl::worker
