#include "workeragent.h"

#include "api/apiclient.h"
#include "cache/blobcache.h"
#include "container/cdispec.h"
#include "container/imageloader.h"
#include "config/bytesize.h"
#include "monitor/samplereporter.h"
#include "monitor/usagesampler.h"
#include "owner/gpulending.h"
#include "owner/ownerpolicy.h"
#include "owner/ownersettings.h"
#include "owner/taskdiskwatch.h"
#include "process/cpuaffinity.h"
#include "runner/taskrunner.h"
#include "runner/venvmanager.h"
#include "slurm/slurmbackend.h"
#include "wire/jobstate.h"
#include "workerlogging.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QSysInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

WorkerAgent::WorkerAgent(const WorkerConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
{
    m_heartbeatTimer.setInterval(m_config.heartbeatIntervalMs);
    m_leaseTimer.setInterval(m_config.leaseIntervalMs);
    m_enrollRetryTimer.setSingleShot(true);
    m_enrollRetryTimer.setInterval(m_config.enrollRetryMs);
    connect(&m_heartbeatTimer, &QTimer::timeout, this, &WorkerAgent::sendHeartbeat);
    connect(&m_leaseTimer, &QTimer::timeout, this, &WorkerAgent::pollLease);
    connect(&m_enrollRetryTimer, &QTimer::timeout, this, &WorkerAgent::enroll);
}

WorkerAgent::~WorkerAgent()
{
    shutdown();
}

QString WorkerAgent::identityPath() const
{
    return m_config.workDir + u"/worker.json"_s;
}

Status WorkerAgent::prepareSandbox()
{
    m_sandboxPolicy.network = m_config.network;
    m_sandboxPolicy.hiddenPaths = {m_config.workDir, QDir::homePath()};
    if (!m_config.configFile.isEmpty())
        m_sandboxPolicy.hiddenPaths << Sandbox::configHidingPath(m_config.configFile);
    if (!m_config.sandbox) {
        m_sandbox = Sandbox();
        qCWarning(lcWorkerAgent).noquote()
            << "tasks run without a sandbox (--no-sandbox): they can read and write everything "
               "this user can, its home and the worker's token included";
        return Ok{};
    }
    const QString bubblewrap = m_config.bubblewrapPath.isEmpty() ? Sandbox::defaultBubblewrapPath()
                                                                 : m_config.bubblewrapPath;
    Result<Sandbox> sandbox = Sandbox::probe(bubblewrap, m_sandboxPolicy);
    if (!sandbox)
        return sandbox.error();
    m_sandbox = *sandbox;
    // The interpreter of DDL tasks (and the base of their venvs) must be one the sandbox shows.
    const QString python = QFileInfo(m_config.python).isAbsolute()
                               ? m_config.python
                               : QStandardPaths::findExecutable(m_config.python);
    if (!python.isEmpty() && QFileInfo::exists(python) && !Sandbox::showsSystemPath(python)) {
        return Error::make(
            ErrorCode::InvalidConfig,
            u"the Python interpreter %1 (%2) lies outside the system folders a sandboxed task "
            u"sees (%3); pass --python with an interpreter installed there, such as "
            u"/usr/bin/python3"_s.arg(python,
                                      QFileInfo(python).canonicalFilePath(),
                                      Sandbox::systemFolders().join(u", "_s)),
            QString::fromLatin1(configkey::Python));
    }
    qCInfo(lcWorkerAgent).noquote() << u"tasks run in a sandbox: %1 (%2)"_s.arg(
        m_sandbox.describe(m_sandboxPolicy), m_sandbox.program());
    return Ok{};
}

Status WorkerAgent::prepareContainers()
{
    if (m_config.containerRuntime != u"podman")
        return Ok{};
    Result<PodmanRuntime> podman =
        PodmanRuntime::probe(PodmanRuntime::defaultPodmanPath(), m_config.workDir);
    if (!podman)
        return podman.error();
    m_podman = *podman;
    m_images = new ImageLoader(m_podman.program(), this);
    qCInfo(lcWorkerAgent).noquote()
        << u"tasks of jobs that name an image run in containers: podman (%1)"_s.arg(
               m_podman.program());
    return Ok{};
}

void WorkerAgent::prepareGpuDevices()
{
    const auto keepSandbox = [](const QString &why) {
        qCWarning(lcWorkerAgent).noquote()
            << u"GPU tasks keep the sandbox, not their image: %1"_s.arg(why);
    };
    if (m_config.gpus >= 0) {
        keepSandbox(u"GPUs declared with --gpus have no driver files to give a container"_s);
        return;
    }
    const QString ldconfig = QStandardPaths::findExecutable(
        u"ldconfig"_s, {u"/sbin"_s, u"/usr/sbin"_s, u"/usr/bin"_s, u"/bin"_s});
    QProcess libraries;
    if (!ldconfig.isEmpty()) {
        libraries.start(ldconfig, {u"-p"_s});
        libraries.waitForFinished(10000);
    }
    const NvidiaDriverFiles driver =
        CdiSpec::discover(u"/dev"_s, libraries.readAllStandardOutput());
    if (driver.isEmpty()) {
        keepSandbox(u"no /dev/nvidiaN device node was found"_s);
        return;
    }
    if (const Status written = CdiSpec::write(CdiSpec::make(driver)); !written) {
        keepSandbox(written.error().message);
        return;
    }
    m_podman.setGpuKind(CdiSpec::Kind);
    qCInfo(lcWorkerAgent).noquote()
        << u"GPU tasks in containers get their GPUs through CDI: %1 GPU(s), %2 driver files, "
           u"%3/%4"_s.arg(driver.gpuNodes.size())
               .arg(driver.files.size())
               .arg(CdiSpec::DefaultDir, CdiSpec::FileName);
}

Status WorkerAgent::start()
{
    if (m_config.backend == u"slurm") {
        // Tasks run on the cluster's nodes; nothing of this machine's sandbox or podman reaches
        // them (the config refuses slurm without --no-sandbox, so the owner said yes to that).
        qCWarning(lcWorkerAgent).noquote()
            << "tasks run as Slurm steps, as this worker's user, without the sandbox: they can "
               "read its token and the shared work folder; Slurm limits only their CPUs, memory "
               "and GPUs (cgroups, where the cluster has them)";
    } else {
        const Status sandboxed = prepareSandbox();
        if (!sandboxed)
            return sandboxed;
        if (const Status containers = prepareContainers(); !containers)
            return containers;
    }
    const bool newWorkDir = !QFileInfo::exists(m_config.workDir);
    for (const QString &sub : {u"cache/blobs"_s, u"cache/datasets"_s, u"tasks"_s, u"venvs"_s}) {
        const QString path = m_config.workDir + u'/' + sub;
        if (!QDir().mkpath(path)) {
            return Error::make(ErrorCode::IoError,
                               u"cannot create %1; check that the work folder %2 is writable"_s.arg(
                                   path, m_config.workDir),
                               u"work-dir"_s);
        }
    }
    // A work folder the worker makes is its owner's only (worker.json is 0600 in any case).
    if (newWorkDir) {
        QFile::setPermissions(m_config.workDir,
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                  QFileDevice::ExeOwner);
    }

    ServerTrust trust;
    if (!m_config.caCertFile.isEmpty()) {
        Result<ServerTrust> fromFile = ServerTrust::fromCaFile(m_config.caCertFile);
        if (!fromFile)
            return fromFile.error();
        trust = *fromFile;
    }
    if (m_config.serverUrl.scheme() == u"http") {
        qCWarning(lcWorkerAgent) << "the server URL is plain http: tokens and data travel "
                                    "unencrypted; use https outside of tests";
    }
    m_client = new ApiClient(m_config.serverUrl, trust, this);

    const Result<std::optional<WorkerIdentity>> identity = WorkerIdentity::load(identityPath());
    if (!identity) {
        if (m_config.enrollToken.isEmpty())
            return identity.error();
        qCWarning(lcWorkerAgent).noquote() << identity.error().message + u"; enrolling again"_s;
    } else if (*identity && (*identity)->server == m_config.serverUrl.toString()) {
        m_identity = **identity;
    } else if (*identity) {
        qCInfo(lcWorkerAgent).noquote() << u"%1 belongs to the server %2; enrolling with %3"_s.arg(
            identityPath(), (*identity)->server, m_config.serverUrl.toString());
    }
    if (!m_identity && m_config.enrollToken.isEmpty()) {
        return Error::make(
            ErrorCode::NoToken,
            u"this worker has no enrollment for %1 in %2 and no enrollment token "
            u"was given; create one with 'ddl-server token create --data-dir "
            u"DIR' and pass it with --token"_s.arg(m_config.serverUrl.toString(), identityPath()),
            u"token"_s);
    }

    if (m_config.backend == u"slurm") {
        if (const Status slurm = prepareSlurm(); !slurm)
            return slurm;
    } else {
        m_resources = detectHostResources(m_config.gpus);
        m_detectedGpus = m_resources.gpus;
        Result<QList<GpuInfo>> lent = selectLentGpus(m_resources.gpus, m_config.lendGpus);
        if (!lent)
            return lent.error();
        m_resources.gpus = *lent;
        if (m_podman.isAvailable() && !m_resources.gpus.isEmpty())
            prepareGpuDevices();
        m_cpuCores = CpuCorePool(cpuaffinity::usableCores());
    }
    if (const Status owner = prepareOwnerPolicy(); !owner)
        return owner;
    m_slots = m_config.slotCount > 0 ? m_config.slotCount : defaultSlotCount(m_resources);
    m_advertiseAddress =
        m_config.advertiseAddress.isEmpty() ? detectAdvertiseAddress() : m_config.advertiseAddress;
    // Slurm's GRES name no model: only --gpu-type gives a Slurm worker a GPU type.
    m_gpuType = m_config.gpuType.isEmpty() && !m_slurm ? defaultGpuType(m_resources)
                                                       : m_config.gpuType;
    QStringList gpuNames;
    for (const GpuInfo &gpu : std::as_const(m_resources.gpus))
        gpuNames << u"%1: %2"_s.arg(gpu.index).arg(gpu.name);
    qCInfo(lcWorkerAgent).noquote()
        << u"worker %1: %2 CPUs, %3 MiB memory, %4 GPU(s)%5, %6 slot(s), address %7, GPU type %8"_s
               .arg(m_config.name)
               .arg(m_resources.cpus)
               .arg(m_resources.memoryMb)
               .arg(m_resources.gpus.size())
               .arg(gpuNames.isEmpty() ? QString() : u" ["_s + gpuNames.join(u", ") + u']')
               .arg(m_slots)
               .arg(m_advertiseAddress)
               .arg(m_gpuType.isEmpty() ? u"none"_s : m_gpuType);
    if (m_cpuCores.cores().isEmpty()) {
        qCInfo(lcWorkerAgent).noquote()
            << "tasks are not pinned to CPU cores: no CPU affinity on this system";
    } else {
        qCInfo(lcWorkerAgent).noquote()
            << u"tasks are pinned to CPU cores among %1"_s.arg(
                   cpuaffinity::format(m_cpuCores.cores()));
    }
    qCInfo(lcWorkerAgent).noquote()
        << u"work folder %1, python %2"_s.arg(m_config.workDir, m_config.python);

    m_cache = new BlobCache(m_client, m_config.workDir + u"/cache"_s, this);
    m_cache->setSizeLimit(m_config.cacheSizeBytes);
    qCInfo(lcWorkerAgent).noquote() << u"cache %1/cache holds %2, limit %3"_s.arg(
        m_config.workDir,
        formatByteSize(m_cache->usage()),
        m_config.cacheSizeBytes > 0 ? formatByteSize(m_config.cacheSizeBytes)
                                    : u"none (--cache-size)"_s);
    m_cache->trim();
    m_venvs = new VenvManager(m_config.workDir + u"/venvs"_s, m_config.python, this);
    m_venvs->setSandbox(m_sandbox, m_sandboxPolicy);

    if (m_identity) {
        qCInfo(lcWorkerAgent).noquote() << u"reusing the enrollment in %1 (worker %2)"_s.arg(
            identityPath(), m_identity->workerId);
        m_client->setBearerToken(m_identity->workerToken);
        QTimer::singleShot(0, this, &WorkerAgent::beginOperating);
    } else {
        QTimer::singleShot(0, this, &WorkerAgent::enroll);
    }
    return Ok{};
}

void WorkerAgent::shutdown()
{
    stopOperating();
    m_enrollRetryTimer.stop();
    if (m_tasks.isEmpty())
        return;
    qCInfo(lcWorkerAgent) << "worker stopping: killing" << m_tasks.size() << "task(s)";
    // Destroying a runner kills its process tree at once.
    const QList<TaskRunner *> runners = m_tasks.values();
    m_tasks.clear();
    m_busyGpus.clear();
    m_cpuCores.clear();
    qDeleteAll(runners);
}

QJsonObject WorkerAgent::resourcesJson() const
{
    QJsonObject resources{{u"cpus"_s, m_resources.cpus},
                          {u"memory_mb"_s, m_resources.memoryMb},
                          {u"gpus"_s, int(m_resources.gpus.size())},
                          {u"slots"_s, m_slots},
                          // Empty too, so that a label taken off a worker leaves the server.
                          {u"gpu_type"_s, m_gpuType}};
    // How this worker can run tasks: "bubblewrap" (the sandbox), "podman" (jobs with an image),
    // "cdi" when it wrote the CDI spec of its GPUs, so that containers get them, and "slurm"
    // (--backend slurm); none with --no-sandbox and without --container-runtime.
    QJsonArray runtimes;
    if (m_sandbox.isEnabled())
        runtimes.append(u"bubblewrap"_s);
    if (m_podman.isAvailable())
        runtimes.append(u"podman"_s);
    if (m_podman.isAvailable() && m_podman.hasGpuDevices())
        runtimes.append(u"cdi"_s);
    if (m_slurm) // shown to people; places nothing differently
        runtimes.append(u"slurm"_s);
    resources.insert(u"runtimes"_s, runtimes);
    // The address peers reach this worker's tasks at (host lists, PAI_CURRENT_CONTAINER_IP);
    // without --advertise-address the server takes the one the worker connects from. Sent with
    // every heartbeat too, as a worker that keeps its enrollment does not enroll again.
    if (!m_config.advertiseAddress.isEmpty())
        resources.insert(u"address"_s, m_config.advertiseAddress);
    // Why the owner's policy lets no task run here now; empty: tasks may run. The server places
    // nothing on a worker that sends one.
    if (m_owner)
        resources.insert(u"owner_busy"_s, m_owner->refusal());
    return resources;
}

void WorkerAgent::enroll()
{
    if (m_enrollRequest)
        return;
    QJsonObject body = resourcesJson();
    body.insert(u"enroll_token"_s, m_config.enrollToken);
    body.insert(u"name"_s, m_config.name);
    body.insert(u"hostname"_s, QSysInfo::machineHostName());
    m_client->setBearerToken({});
    qCInfo(lcWorkerAgent).noquote() << "enrolling with" << m_config.serverUrl.toString();
    m_enrollRequest = m_client->postJson(u"/v1/workers/enroll"_s, body);
    connect(m_enrollRequest, &ApiRequest::finished, this, &WorkerAgent::handleEnrollAnswer);
}

void WorkerAgent::handleEnrollAnswer()
{
    ApiRequest *request = std::exchange(m_enrollRequest, nullptr);
    request->deleteLater();
    const Result<ApiResponse> &result = request->result();
    if (!result) {
        const Error &error = result.error();
        if (isTransient(error)) {
            if (!m_enrollFailureLogged) {
                qCWarning(lcWorkerAgent).noquote()
                    << u"cannot enroll yet: %1; retrying every %2 s"_s.arg(error.message)
                           .arg(m_config.enrollRetryMs / 1000);
                m_enrollFailureLogged = true;
            }
            m_enrollRetryTimer.start();
            return;
        }
        emit fatalError(u"the server refused to enroll this worker: %1; create a new enrollment "
                        u"token with 'ddl-server token create --data-dir DIR' and pass it with "
                        u"--token"_s.arg(error.message));
        return;
    }
    m_enrollFailureLogged = false;
    const QJsonObject answer = result->json();
    WorkerIdentity identity;
    identity.server = m_config.serverUrl.toString();
    identity.workerId = answer.value(u"worker_id"_s).toVariant().toString();
    identity.workerToken = answer.value(u"worker_token"_s).toString();
    if (identity.workerId.isEmpty() || identity.workerToken.isEmpty()) {
        emit fatalError(u"the server's enrollment answer has no worker_id and worker_token"_s);
        return;
    }
    const Status saved = identity.save(identityPath());
    if (!saved) {
        emit fatalError(saved.error().message);
        return;
    }
    m_identity = identity;
    m_client->setBearerToken(identity.workerToken);
    qCInfo(lcWorkerAgent).noquote() << "enrolled as worker" << identity.workerId;
    emit enrolled(identity.workerId);
    beginOperating();
}

void WorkerAgent::startSampling()
{
    if (m_sampler || m_config.sampleIntervalMs <= 0)
        return;
    // GPUs declared with --gpus have no nvidia-smi to read them.
    const QString nvidiaSmi = m_config.gpus < 0 && !m_resources.gpus.isEmpty()
                                  ? QStandardPaths::findExecutable(u"nvidia-smi"_s)
                                  : QString();
    m_sampler = new UsageSampler(m_config.sampleIntervalMs, nvidiaSmi, this);
    m_samples = new SampleReporter(m_client, this);
    if (m_podman.isAvailable())
        m_sampler->setPodmanProgram(m_podman.program());
    m_sampler->setTaskSource([this] {
        QList<SampledTask> tasks;
        for (const TaskRunner *runner : std::as_const(m_tasks)) {
            if (const qint64 pid = runner->processId(); pid > 0)
                tasks.append(
                    {runner->taskId(), pid, runner->containerName(), runner->gpuIndices()});
        }
        return tasks;
    });
    connect(m_sampler, &UsageSampler::taskSampled, m_samples, &SampleReporter::addTaskSample);
    connect(m_sampler, &UsageSampler::hostSampled, m_samples, [this](UtilisationSample s) {
        // The GPUs the owner keeps (--lend-gpus) are none of the server's business.
        s.gpus.removeIf([this](const GpuReading &reading) {
            return std::none_of(m_resources.gpus.cbegin(), m_resources.gpus.cend(),
                                [&reading](const GpuInfo &gpu) { return gpu.index == reading.index; });
        });
        m_samples->addHostSample(s);
        // The machine's sample ends each round: one batch a round.
        if (m_operating)
            m_samples->flush();
    });
    m_sampler->start();
    qCInfo(lcWorkerAgent).noquote()
        << u"utilisation sampled every %1 ms%2"_s.arg(m_config.sampleIntervalMs)
               .arg(nvidiaSmi.isEmpty() ? QString() : u", GPUs through "_s + nvidiaSmi);
}

Status WorkerAgent::prepareOwnerPolicy()
{
    if (m_slurm)
        return Ok{};
    const Result<OwnerPolicy::Settings> settings = ownerSettings(m_config, m_resources.gpus);
    if (!settings)
        return settings.error();
    m_owner = new OwnerPolicy(
        *settings,
        [this] {
            QList<qint64> leaders;
            for (const TaskRunner *runner : std::as_const(m_tasks)) {
                if (const qint64 pid = runner->processId(); pid > 0)
                    leaders << pid;
            }
            return leaders;
        },
        this);
    connect(m_owner, &OwnerPolicy::changed, this, &WorkerAgent::handleOwnerPolicyChanged);
    qCInfo(lcWorkerAgent).noquote()
        << u"owner's policy: %1; a preempted task gets %2 s between SIGTERM and SIGKILL"_s.arg(
               m_owner->describe())
               .arg(m_config.preemptNoticeS);
    m_owner->start();
    if (m_config.taskDiskLimitBytes > 0)
        watchTaskDisks();
    return Ok{};
}

Status WorkerAgent::applyOwnerSettings(const WorkerConfig &fresh)
{
    if (!m_owner)
        return Error::make(ErrorCode::InvalidConfig,
                           u"the owner's settings apply to --backend local only"_s);
    const Result<QList<GpuInfo>> lent = selectLentGpus(m_detectedGpus, fresh.lendGpus);
    if (!lent)
        return lent.error();
    const Result<OwnerPolicy::Settings> settings = ownerSettings(fresh, *lent);
    if (!settings)
        return settings.error();
    m_config.availableHours = fresh.availableHours;
    m_config.onlyWhenIdle = fresh.onlyWhenIdle;
    m_config.idleInputMs = fresh.idleInputMs;
    m_config.inputDevices = fresh.inputDevices;
    m_config.lendGpus = fresh.lendGpus;
    m_config.preemptNoticeS = fresh.preemptNoticeS;
    m_config.taskDiskLimitBytes = fresh.taskDiskLimitBytes;
    if (m_diskWatch)
        m_diskWatch->setLimit(m_config.taskDiskLimitBytes);
    else if (m_config.taskDiskLimitBytes > 0)
        watchTaskDisks();
    m_resources.gpus = *lent;
    // A task on a GPU the owner took back ends as it would for any of the owner's needs.
    for (TaskRunner *runner : std::as_const(m_tasks)) {
        const QList<int> held = runner->gpuIndices();
        const bool takenBack = std::any_of(held.cbegin(), held.cend(), [this](int index) {
            return std::none_of(m_resources.gpus.cbegin(), m_resources.gpus.cend(),
                                [index](const GpuInfo &gpu) { return gpu.index == index; });
        });
        if (takenBack)
            runner->preempt(u"the owner no longer lends its GPU"_s);
    }
    m_owner->reconfigure(*settings);
    QStringList gpus;
    for (const GpuInfo &gpu : std::as_const(m_resources.gpus))
        gpus << QString::number(gpu.index);
    qCInfo(lcWorkerAgent).noquote()
        << u"owner's policy now: %1; lending %2; a preempted task gets %3 s"_s.arg(
               m_owner->describe(), gpus.isEmpty() ? u"no GPU"_s : u"GPU "_s + gpus.join(u", "_s))
               .arg(m_config.preemptNoticeS);
    // The server learns the GPUs and whether it may place tasks here at once.
    sendHeartbeat();
    return Ok{};
}

void WorkerAgent::watchTaskDisks()
{
    m_diskWatch = new TaskDiskWatch(
        m_config.taskDiskLimitBytes,
        m_config.diskCheckIntervalMs,
        [this] {
            QList<TaskDiskWatch::Task> tasks;
            for (const TaskRunner *runner : std::as_const(m_tasks)) {
                // One whose process ended writes no more; failing it now would drop its
                // outputs and its last checkpoint.
                if (!runner->processEnded())
                    tasks.append({runner->taskId(), runner->taskDir(), runner->datasetDir()});
            }
            return tasks;
        },
        this);
    connect(m_diskWatch, &TaskDiskWatch::overLimit, this, [this](qint64 taskId, qint64 bytes) {
        if (TaskRunner *runner = m_tasks.value(taskId))
            runner->failOverLimit(
                u"the task's folder holds more than %1 (at least %2), the disk limit the owner "
                u"of worker %3 set (task_disk_limit); write less, or run where there is room"_s
                    .arg(formatByteSize(m_config.taskDiskLimitBytes), formatByteSize(bytes),
                         m_config.name));
    });
    m_diskWatch->start();
    qCInfo(lcWorkerAgent).noquote()
        << u"a task whose folder holds more than %1 fails (measured every %2 s)"_s.arg(
               formatByteSize(m_config.taskDiskLimitBytes))
               .arg(m_config.diskCheckIntervalMs / 1000.0);
}

void WorkerAgent::handleOwnerPolicyChanged(const QString &refusal)
{
    if (refusal.isEmpty()) {
        qCInfo(lcWorkerAgent).noquote() << "the owner's policy allows tasks again: taking tasks";
    } else {
        qCInfo(lcWorkerAgent).noquote()
            << u"taking no tasks: %1; preempting %2 running task(s)"_s.arg(refusal).arg(
                   m_tasks.size());
        for (TaskRunner *runner : std::as_const(m_tasks))
            runner->preempt(refusal);
    }
    // The server learns at once whether it may place tasks here.
    sendHeartbeat();
    pollLease();
}

void WorkerAgent::beginOperating()
{
    if (m_operating)
        return;
    m_operating = true;
    startSampling();
    m_heartbeatTimer.start();
    m_leaseTimer.start();
    sendHeartbeat();
    pollLease();
}

void WorkerAgent::stopOperating()
{
    m_operating = false;
    m_heartbeatTimer.stop();
    m_leaseTimer.stop();
}

bool WorkerAgent::handleUnauthorized(const Error &error, const char *what)
{
    if (!isUnauthorized(error))
        return false;
    if (!m_operating)
        return true;
    stopOperating();
    if (m_config.enrollToken.isEmpty()) {
        emit fatalError(
            u"the server no longer accepts this worker's credentials (%1) and no "
            u"enrollment token was given to enroll again; pass --token"_s.arg(error.message));
        return true;
    }
    qCWarning(lcWorkerAgent).noquote()
        << u"the server answered 401 to the %1; enrolling again"_s.arg(QLatin1StringView(what));
    m_identity.reset();
    enroll();
    return true;
}

void WorkerAgent::sendHeartbeat()
{
    if (!m_operating)
        return;
    if (m_heartbeatRequest) {
        m_heartbeatAgain = true;
        return;
    }
    QJsonObject body = resourcesJson();
    QJsonArray running;
    for (qint64 id : m_tasks.keys())
        running.append(id);
    body.insert(u"running"_s, running);
    m_heartbeatRequest = m_client->postJson(u"/v1/workers/heartbeat"_s, body);
    connect(m_heartbeatRequest, &ApiRequest::finished, this, &WorkerAgent::handleHeartbeatAnswer);
}

void WorkerAgent::handleHeartbeatAnswer()
{
    ApiRequest *request = std::exchange(m_heartbeatRequest, nullptr);
    request->deleteLater();
    if (std::exchange(m_heartbeatAgain, false))
        QTimer::singleShot(0, this, &WorkerAgent::sendHeartbeat);
    const Result<ApiResponse> &result = request->result();
    if (!result) {
        // Said once per outage, not every two seconds.
        if (!handleUnauthorized(result.error(), "heartbeat") && !m_heartbeatFailing) {
            qCWarning(lcWorkerAgent).noquote()
                << u"heartbeat failed: %1; running tasks go on, retrying"_s.arg(
                       result.error().message);
            m_heartbeatFailing = true;
        }
        return;
    }
    if (std::exchange(m_heartbeatFailing, false))
        qCInfo(lcWorkerAgent) << "heartbeats reach the server again";
    const QJsonArray cancel = result->json().value(u"cancel"_s).toArray();
    for (const QJsonValue &value : cancel) {
        const qint64 id = value.isString() ? value.toString().toLongLong() : value.toInteger();
        if (TaskRunner *runner = m_tasks.value(id)) {
            qCInfo(lcWorkerAgent) << "server cancels task" << id;
            runner->cancel();
        }
    }
}

Status WorkerAgent::prepareSlurm()
{
    SlurmSettings settings;
    settings.partition = m_config.partition;
    m_slurm = new SlurmBackend(settings, m_config.workDir + u"/tasks"_s, this);
    const Result<SlurmCapacity> capacity = m_slurm->readCapacity();
    if (!capacity) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"--backend slurm: cannot read the capacity of partition '%1': %2"_s.arg(
                               m_config.partition.isEmpty() ? u"(default)"_s : m_config.partition,
                               capacity.error().message),
                           QString::fromLatin1(configkey::Backend));
    }
    m_resources.cpus = capacity->cpus;
    m_resources.memoryMb = capacity->memoryMb;
    m_resources.gpus.clear();
    // The server books GPUs by index; Slurm picks the devices, so these only count them.
    for (int index = 0; index < capacity->gpus; ++index)
        m_resources.gpus.append({index, u"Slurm GRES gpu"_s, 0, {}});
    qCInfo(lcWorkerAgent).noquote()
        << u"Slurm partition %1: %2 node(s), %3 CPUs (at most %4 on one node), %5 MiB, %6 GPU(s); "
           u"task folders under %7 must be visible to every node at the same path"_s
               .arg(m_config.partition.isEmpty() ? u"(default)"_s : m_config.partition)
               .arg(capacity->nodes)
               .arg(capacity->cpus)
               .arg(capacity->largestNodeCpus)
               .arg(capacity->memoryMb)
               .arg(capacity->gpus)
               .arg(m_config.workDir + u"/tasks"_s);
    return Ok{};
}

int WorkerAgent::freeSlots() const
{
    return std::max(0, m_slots - int(m_tasks.size()));
}

QList<int> WorkerAgent::freeGpus() const
{
    QList<int> free;
    for (const GpuInfo &gpu : m_resources.gpus) {
        if (!m_busyGpus.contains(gpu.index))
            free.append(gpu.index);
    }
    return free;
}

void WorkerAgent::pollLease()
{
    // Polled while the owner's policy says no too: what the server placed before it learnt so
    // is collected and given back at once (handleLeaseAnswer), not left waiting here.
    if (!m_operating || m_leaseRequest || freeSlots() == 0)
        return;
    int usedCpus = 0;
    qint64 usedMemory = 0;
    for (const TaskRunner *runner : std::as_const(m_tasks)) {
        usedCpus += runner->lease().cpus;
        usedMemory += runner->lease().memoryMb;
    }
    const QJsonObject body{
        {u"free_slots"_s, freeSlots()},
        {u"free_gpus"_s, int(freeGpus().size())},
        {u"free_cpus"_s, std::max(0, m_resources.cpus - usedCpus)},
        {u"free_memory_mb"_s, std::max<qint64>(0, m_resources.memoryMb - usedMemory)}};
    m_leaseRequest = m_client->postJson(u"/v1/workers/lease"_s, body);
    connect(m_leaseRequest, &ApiRequest::finished, this, &WorkerAgent::handleLeaseAnswer);
}

void WorkerAgent::handleLeaseAnswer()
{
    ApiRequest *request = std::exchange(m_leaseRequest, nullptr);
    request->deleteLater();
    const Result<ApiResponse> &result = request->result();
    if (!result) {
        if (!handleUnauthorized(result.error(), "lease request"))
            qCDebug(lcWorkerAgent).noquote() << "lease failed:" << result.error().message;
        return;
    }
    const QJsonArray tasks = result->json().value(u"tasks"_s).toArray();
    QList<TaskLease> leases;
    for (const QJsonValue &value : tasks) {
        qint64 taskId = -1;
        Result<TaskLease> lease = TaskLease::fromJson(value.toObject(), &taskId);
        if (!lease) {
            qCWarning(lcWorkerAgent).noquote() << "unusable lease:" << lease.error().message;
            if (taskId >= 0)
                rejectTask(taskId, lease.error().message);
            continue;
        }
        if (m_tasks.contains(lease->taskId))
            continue; // the same lease again: it is already running here
        leases.append(std::move(*lease));
    }
    // Placed just as the owner took the machine back: they wait for another worker.
    if (m_owner && !m_owner->allowsTasks()) {
        for (const TaskLease &lease : std::as_const(leases))
            giveBackTask(lease.taskId, m_owner->refusal());
        return;
    }
    // The server places a gang at once, so its tasks on this worker come in one answer.
    if (m_slurm)
        m_slurm->planJobs(leases);
    for (const TaskLease &lease : std::as_const(leases))
        startTask(lease);
}

void WorkerAgent::startTask(const TaskLease &lease)
{
    const QList<int> free = freeGpus();
    if (lease.gpus > free.size()) {
        rejectTask(lease.taskId,
                   u"the task needs %1 GPU(s) and worker %2 has %3 free"_s.arg(lease.gpus)
                       .arg(m_config.name)
                       .arg(free.size()));
        return;
    }
    // The server books GPUs by their position among those announced so that none is given
    // twice; follow it when it did.
    QList<int> gpus = free.first(lease.gpus);
    const QList<int> booked = gpusAtPositions(m_resources.gpus, lease.gpuIndices);
    if (lease.gpuIndices.size() == lease.gpus && booked.size() == lease.gpus
        && std::all_of(booked.cbegin(), booked.cend(),
                       [&free](int index) { return free.contains(index); }))
        gpus = booked;
    for (int index : gpus)
        m_busyGpus.insert(index);
    // The server books CPUs by count; a worker that declared more than it has is over-committed,
    // and its tasks then share the least used cores.
    const qsizetype freeCores = m_cpuCores.freeCores().size();
    const QList<int> cores = m_cpuCores.acquire(lease.cpus);
    const bool sharedCores = std::any_of(cores.cbegin(), cores.cend(), [this](int core) {
        return m_cpuCores.users(core) > 1;
    });
    if (!cores.isEmpty() && (sharedCores || cores.size() < lease.cpus)) {
        qCInfo(lcWorkerAgent).noquote()
            << u"task %1 asks for %2 CPU(s) and %3 core(s) are free: it gets cores %4, shared"_s
                   .arg(lease.taskId)
                   .arg(lease.cpus)
                   .arg(freeCores)
                   .arg(cpuaffinity::format(cores));
    }

    TaskServices services;
    services.client = m_client;
    services.cache = m_cache;
    services.venvs = m_venvs;
    services.tasksRoot = m_config.workDir + u"/tasks"_s;
    services.python = m_config.python;
    services.advertiseAddress = m_advertiseAddress;
    services.workerName = m_config.name;
    services.sandbox = m_sandbox;
    services.sandboxPolicy = m_sandboxPolicy;
    services.podman = m_podman;
    services.images = m_images;
    services.logFlushIntervalMs = m_config.logFlushIntervalMs;
    services.killGraceMs = m_config.killGraceMs;
    services.preemptNoticeS = m_config.preemptNoticeS;
    services.checkpointIntervalS = m_config.checkpointIntervalS;
    for (const GpuInfo &gpu : std::as_const(m_resources.gpus))
        services.gpuMinors.insert(gpu.index, gpu.minor);
    if (m_slurm) {
        services.executionFactory = [slurm = m_slurm](const TaskLease &lease, QObject *parent) {
            return slurm->createStep(lease, parent);
        };
    }

    auto *runner = new TaskRunner(lease, gpus, cores, services, this);
    m_tasks.insert(lease.taskId, runner);
    connect(runner, &TaskRunner::finished, this, &WorkerAgent::handleTaskFinished);
    qCInfo(lcWorkerAgent).noquote()
        << u"task %1 leased: job %2, %3, role %4 #%5, %6 GPU(s), CPU cores %7"_s
               .arg(lease.taskId)
               .arg(lease.jobName.isEmpty() ? lease.jobUuid : lease.jobName,
                    TaskLease::kindName(lease.kind),
                    lease.role)
               .arg(lease.roleIndex)
               .arg(lease.gpus)
               .arg(cores.isEmpty() ? u"not pinned"_s : cpuaffinity::format(cores));
    emit taskStarted(lease.taskId);
    runner->start();
}

void WorkerAgent::rejectTask(qint64 taskId, const QString &message)
{
    QJsonObject body{{u"state"_s, stateName(JobState::Failed)},
                     {u"exit_code"_s, QJsonValue()},
                     {u"message"_s, message}};
    ApiRequest *request = m_client->postJson(u"/v1/workers/tasks/%1/state"_s.arg(taskId), body);
    connect(request, &ApiRequest::finished, request, &QObject::deleteLater);
}

void WorkerAgent::giveBackTask(qint64 taskId, const QString &why)
{
    qCInfo(lcWorkerAgent).noquote() << u"task %1 given back: %2"_s.arg(taskId).arg(why);
    const QJsonObject body{
        {u"state"_s, stateName(JobState::Stopped)},
        {u"exit_code"_s, QJsonValue()},
        {u"message"_s,
         u"preempted on worker %1: its owner needs the machine (%2)"_s.arg(m_config.name, why)},
        {u"preempted"_s, true}};
    ApiRequest *request = m_client->postJson(u"/v1/workers/tasks/%1/state"_s.arg(taskId), body);
    connect(request, &ApiRequest::finished, request, &QObject::deleteLater);
}

void WorkerAgent::handleTaskFinished(qint64 taskId, const QString &state)
{
    TaskRunner *runner = m_tasks.take(taskId);
    if (!runner)
        return;
    for (int index : runner->gpuIndices())
        m_busyGpus.remove(index);
    m_cpuCores.release(runner->cpuCores());
    if (m_slurm)
        m_slurm->taskEnded(taskId);
    runner->deleteLater();
    qCInfo(lcWorkerAgent).noquote() << "task" << taskId << "done:" << state;
    m_cache->trim(); // what the task used may go now
    emit taskFinished(taskId, state);
    // A slot just came free: ask for work without waiting for the next tick.
    pollLease();
}

} // namespace ddl::worker
