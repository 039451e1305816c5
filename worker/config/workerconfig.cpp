#include "workerconfig.h"

#include "config/bytesize.h"
#include "owner/inputactivity.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSysInfo>

#include <yaml-cpp/yaml.h>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

QString flagName(const char *key)
{
    return QString::fromLatin1(key).replace(u'_', u'-');
}

Error configError(const QString &origin, const char *key, const QString &what)
{
    return Error::make(ErrorCode::InvalidConfig,
                       u"%1: '%2' %3"_s.arg(origin, QString::fromLatin1(key), what),
                       QString::fromLatin1(key));
}

Result<int> parseCount(const QString &text, const QString &origin, const char *key)
{
    bool ok = false;
    const int value = text.trimmed().toInt(&ok);
    if (!ok || value < 0)
        return configError(origin, key, u"must be a whole number >= 0, got '%1'"_s.arg(text));
    return value;
}

Result<qint64> parseCacheSize(const QString &text, const QString &origin)
{
    const Result<qint64> bytes = parseByteSize(text);
    if (!bytes)
        return configError(origin, configkey::CacheSize, bytes.error().message);
    return bytes;
}

Result<int> parseSampleInterval(const QString &text, const QString &origin)
{
    bool ok = false;
    const double seconds = text.trimmed().toDouble(&ok);
    if (!ok || !(seconds == 0 || (seconds >= 0.1 && seconds <= 3600))) {
        return configError(
            origin,
            configkey::SampleInterval,
            u"must be seconds between 0.1 and 3600 (0: no samples), got '%1'"_s.arg(text));
    }
    return int(seconds * 1000);
}

Result<qint64> parseTaskDiskLimit(const QString &text, const QString &origin)
{
    const Result<qint64> bytes = parseByteSize(text);
    if (!bytes)
        return configError(origin, configkey::TaskDiskLimit, bytes.error().message);
    return bytes;
}

Result<AvailabilityWindows> parseAvailable(const QString &text, const QString &origin)
{
    Result<AvailabilityWindows> windows = AvailabilityWindows::parse(text);
    if (!windows)
        return configError(origin, configkey::Available, windows.error().message);
    return windows;
}

Result<int> parsePreemptNotice(const QString &text, const QString &origin)
{
    bool ok = false;
    const int seconds = text.trimmed().toInt(&ok);
    if (!ok || seconds < 0 || seconds > 3600) {
        return configError(origin,
                           configkey::PreemptNotice,
                           u"must be whole seconds between 0 and 3600, got '%1'"_s.arg(text));
    }
    return seconds;
}

Result<qint64> parseIdleInputMinutes(const QString &text, const QString &origin)
{
    bool ok = false;
    const double minutes = text.trimmed().toDouble(&ok);
    if (!ok || !(minutes == 0 || (minutes >= 0.01 && minutes <= 24 * 60))) {
        return configError(origin,
                           configkey::IdleInputMinutes,
                           u"must be minutes between 0.01 and 1440 (fractions allowed; 0: input "
                           u"is not watched), got '%1'"_s.arg(text));
    }
    return qint64(minutes * 60 * 1000);
}

// Comma-separated absolute paths, wildcards allowed in the file's name.
Result<QStringList> parseInputDevices(const QString &text, const QString &origin)
{
    QStringList patterns;
    for (const QString &part : text.split(u',', Qt::SkipEmptyParts)) {
        const QString pattern = part.trimmed();
        if (pattern.isEmpty())
            continue;
        if (!pattern.startsWith(u'/') || pattern.contains(u"/../"_s) || pattern.endsWith(u"/.."_s)
            || QFileInfo(pattern).path().contains(QRegularExpression(u"[*?\\[]"_s))) {
            return configError(origin,
                               configkey::InputDevices,
                               u"must be absolute paths separated by commas, wildcards only in "
                               u"the file's name (e.g. \"/dev/tty[0-9]*, /dev/input/event*\"), "
                               u"got '%1'"_s.arg(pattern));
        }
        patterns << pattern;
    }
    if (patterns.isEmpty())
        return configError(origin, configkey::InputDevices, u"names no path"_s);
    return patterns;
}

// Comma-separated GPU indexes (0, 2) or UUIDs (GPU-8912d640-...), as nvidia-smi -L shows them.
Result<QStringList> parseLendGpus(const QString &text, const QString &origin)
{
    static const QRegularExpression gpu(
        QRegularExpression::anchoredPattern(u"[0-9]{1,3}|(GPU|MIG)-[0-9A-Za-z/-]{1,80}"_s));
    QStringList gpus;
    for (const QString &part : text.split(u',')) {
        const QString name = part.trimmed();
        if (!gpu.match(name).hasMatch()) {
            return configError(origin,
                               configkey::LendGpus,
                               u"must be GPU indexes or UUIDs separated by commas, as "
                               u"'nvidia-smi -L' lists them (e.g. \"0,2\" or \"GPU-8912d640-...\"), "
                               u"got '%1'"_s.arg(name));
        }
        if (!gpus.contains(name))
            gpus << name;
    }
    return gpus;
}

Result<int> parseCheckpointInterval(const QString &text, const QString &origin)
{
    bool ok = false;
    const int seconds = text.trimmed().toInt(&ok);
    if (!ok || seconds < 0 || seconds > 86400) {
        return configError(origin,
                           configkey::CheckpointInterval,
                           u"must be whole seconds between 0 (off) and 86400, got '%1'"_s.arg(text));
    }
    return seconds;
}

Result<bool> parseSwitch(const YAML::Node &node, const QString &origin, const char *key)
{
    bool value = false;
    if (!YAML::convert<bool>::decode(node, value)) {
        return configError(origin,
                           key,
                           u"must be true or false, got '%1'"_s.arg(
                               QString::fromStdString(node.as<std::string>(""))));
    }
    return value;
}

} // namespace

Result<WorkerConfig> WorkerConfig::fromYaml(const QByteArray &yaml, const QString &origin)
{
    WorkerConfig config;
    YAML::Node root;
    try {
        root = YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"%1: not valid YAML (line %2): %3"_s.arg(origin)
                               .arg(e.mark.line + 1)
                               .arg(QString::fromStdString(e.msg)));
    }
    if (root.IsNull())
        return config;
    if (!root.IsMap()) {
        return Error::make(
            ErrorCode::InvalidConfig,
            u"%1: expected a mapping of keys (server: ..., work_dir: ...)"_s.arg(origin));
    }
    static const char *const known[] = {configkey::Server,
                                        configkey::Token,
                                        configkey::CaCert,
                                        configkey::WorkDir,
                                        configkey::Name,
                                        configkey::Python,
                                        configkey::AdvertiseAddress,
                                        configkey::Gpus,
                                        configkey::GpuType,
                                        configkey::Slots,
                                        configkey::NoSandbox,
                                        configkey::NoNetwork,
                                        configkey::CacheSize,
                                        configkey::ContainerRuntime,
                                        configkey::AllowRoot,
                                        configkey::Backend,
                                        configkey::Partition,
                                        configkey::SampleInterval,
                                        configkey::OnlyWhenIdle,
                                        configkey::Available,
                                        configkey::PreemptNotice,
                                        configkey::IdleInputMinutes,
                                        configkey::InputDevices,
                                        configkey::LendGpus,
                                        configkey::TaskDiskLimit,
                                        configkey::CheckpointInterval};
    for (const auto &entry : root) {
        const std::string key = entry.first.as<std::string>("");
        const bool isKnown = std::any_of(
            std::begin(known), std::end(known), [&](const char *k) { return key == k; });
        if (!isKnown) {
            QStringList names;
            for (const char *k : known)
                names << QString::fromLatin1(k);
            return Error::make(ErrorCode::InvalidConfig,
                               u"%1: unknown key '%2'; known keys: %3"_s.arg(
                                   origin, QString::fromStdString(key), names.join(u", ")),
                               QString::fromStdString(key));
        }
        if (!entry.second.IsScalar())
            return configError(origin, key.c_str(), u"must be a single value"_s);
    }

    auto text = [&](const char *key) {
        return QString::fromStdString(root[key].as<std::string>());
    };
    if (root[configkey::Server]) {
        config.serverUrl = QUrl(text(configkey::Server));
        if (!config.serverUrl.isValid())
            return configError(origin, configkey::Server, u"is not a URL"_s);
    }
    if (root[configkey::Token])
        config.enrollToken = text(configkey::Token);
    if (root[configkey::CaCert])
        config.caCertFile = text(configkey::CaCert);
    if (root[configkey::WorkDir])
        config.workDir = text(configkey::WorkDir);
    if (root[configkey::Name])
        config.name = text(configkey::Name);
    if (root[configkey::Python])
        config.python = text(configkey::Python);
    if (root[configkey::AdvertiseAddress])
        config.advertiseAddress = text(configkey::AdvertiseAddress);
    if (root[configkey::Gpus]) {
        const Result<int> gpus = parseCount(text(configkey::Gpus), origin, configkey::Gpus);
        if (!gpus)
            return gpus.error();
        config.gpus = *gpus;
    }
    if (root[configkey::GpuType])
        config.gpuType = text(configkey::GpuType);
    if (root[configkey::Slots]) {
        const Result<int> count = parseCount(text(configkey::Slots), origin, configkey::Slots);
        if (!count)
            return count.error();
        config.slotCount = *count;
    }
    if (root[configkey::ContainerRuntime])
        config.containerRuntime = text(configkey::ContainerRuntime);
    if (root[configkey::Backend])
        config.backend = text(configkey::Backend);
    if (root[configkey::Partition])
        config.partition = text(configkey::Partition);
    if (root[configkey::CacheSize]) {
        const Result<qint64> size = parseCacheSize(text(configkey::CacheSize), origin);
        if (!size)
            return size.error();
        config.cacheSizeBytes = *size;
    }
    if (root[configkey::SampleInterval]) {
        const Result<int> interval = parseSampleInterval(text(configkey::SampleInterval), origin);
        if (!interval)
            return interval.error();
        config.sampleIntervalMs = *interval;
    }
    if (root[configkey::Available]) {
        const Result<AvailabilityWindows> hours = parseAvailable(text(configkey::Available), origin);
        if (!hours)
            return hours.error();
        config.availableHours = *hours;
    }
    if (root[configkey::PreemptNotice]) {
        const Result<int> notice = parsePreemptNotice(text(configkey::PreemptNotice), origin);
        if (!notice)
            return notice.error();
        config.preemptNoticeS = *notice;
    }
    if (root[configkey::IdleInputMinutes]) {
        const Result<qint64> idle =
            parseIdleInputMinutes(text(configkey::IdleInputMinutes), origin);
        if (!idle)
            return idle.error();
        config.idleInputMs = *idle;
    }
    if (root[configkey::InputDevices]) {
        const Result<QStringList> devices = parseInputDevices(text(configkey::InputDevices), origin);
        if (!devices)
            return devices.error();
        config.inputDevices = *devices;
    }
    if (root[configkey::TaskDiskLimit]) {
        const Result<qint64> limit = parseTaskDiskLimit(text(configkey::TaskDiskLimit), origin);
        if (!limit)
            return limit.error();
        config.taskDiskLimitBytes = *limit;
    }
    if (root[configkey::LendGpus]) {
        const Result<QStringList> gpus = parseLendGpus(text(configkey::LendGpus), origin);
        if (!gpus)
            return gpus.error();
        config.lendGpus = *gpus;
    }
    if (root[configkey::CheckpointInterval]) {
        const Result<int> interval =
            parseCheckpointInterval(text(configkey::CheckpointInterval), origin);
        if (!interval)
            return interval.error();
        config.checkpointIntervalS = *interval;
    }
    if (root[configkey::OnlyWhenIdle]) {
        const Result<bool> on =
            parseSwitch(root[configkey::OnlyWhenIdle], origin, configkey::OnlyWhenIdle);
        if (!on)
            return on.error();
        config.onlyWhenIdle = *on;
    }
    if (root[configkey::NoSandbox]) {
        const Result<bool> off =
            parseSwitch(root[configkey::NoSandbox], origin, configkey::NoSandbox);
        if (!off)
            return off.error();
        config.sandbox = !*off;
    }
    if (root[configkey::NoNetwork]) {
        const Result<bool> off =
            parseSwitch(root[configkey::NoNetwork], origin, configkey::NoNetwork);
        if (!off)
            return off.error();
        config.network = !*off;
    }
    if (root[configkey::AllowRoot]) {
        const Result<bool> on =
            parseSwitch(root[configkey::AllowRoot], origin, configkey::AllowRoot);
        if (!on)
            return on.error();
        config.allowRoot = *on;
    }
    return config;
}

Result<WorkerConfig> WorkerConfig::fromYamlFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"cannot read the worker config %1: %2"_s.arg(path, file.errorString()),
                           u"config"_s);
    }
    return fromYaml(file.readAll(), path);
}

void WorkerConfig::addOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {u"config"_s, u"Read settings from this YAML file; flags override it."_s, u"file"_s},
        {flagName(configkey::Server),
         u"Base URL of the DDL server (https://host:port)."_s,
         u"url"_s},
        {flagName(configkey::Token),
         u"Enrollment token (ddl-server token create); needed until the worker has enrolled."_s,
         u"token"_s},
        {flagName(configkey::CaCert),
         u"Trust the server certificate or CA in this PEM file."_s,
         u"file"_s},
        {flagName(configkey::WorkDir),
         u"Folder for the worker's identity, caches, venvs and task folders."_s,
         u"dir"_s},
        {flagName(configkey::Name), u"Name shown by the server (default: host name)."_s, u"name"_s},
        {flagName(configkey::Python),
         u"Python interpreter for DDL tasks (default: /usr/bin/python3, else python3)."_s,
         u"path"_s},
        {flagName(configkey::AdvertiseAddress),
         u"Address other tasks reach this worker's tasks at (PAI_CURRENT_CONTAINER_IP and the "
         u"host lists; default: the address the server sees the worker connect from)."_s,
         u"address"_s},
        {flagName(configkey::Gpus), u"Declare N GPUs instead of asking nvidia-smi."_s, u"n"_s},
        {flagName(configkey::LendGpus),
         u"Lend only these GPUs: indexes or UUIDs as 'nvidia-smi -L' lists them, "
         u"comma-separated (\"0,2\"). The worker announces and gives tasks only these, and "
         u"--only-when-idle watches only them. Default: every GPU."_s,
         u"gpus"_s},
        {flagName(configkey::GpuType),
         u"The GPU type jobs ask for with OpenPAI's gpuType (matched in any case; default: the "
         u"model nvidia-smi reports, none without GPUs)."_s,
         u"name"_s},
        {flagName(configkey::Slots),
         u"Run at most N tasks at once (default: one per CPU, at least one per GPU; tasks are "
         u"placed by their GPUs, CPUs and memory)."_s,
         u"n"_s},
        {flagName(configkey::CacheSize),
         u"Keep the blob and dataset cache under this size (20G, 512M; K/M/G/T are powers of "
         u"1024), evicting what no running task uses, least recently used first. Default: 0, "
         u"no limit."_s,
         u"size"_s},
        {flagName(configkey::TaskDiskLimit),
         u"Fail a task whose folder (code, outputs, scratch; not its dataset) holds more than "
         u"this (20G, 512M; K/M/G/T are powers of 1024), measured every 5 s. Default: 0, no "
         u"limit."_s,
         u"size"_s},
        {flagName(configkey::SampleInterval),
         u"Measure running tasks and the machine (CPU, memory, GPUs through nvidia-smi) every "
         u"this many seconds for the utilisation graphs; 0: never. Default: 5."_s,
         u"seconds"_s},
        {flagName(configkey::NoSandbox),
         u"Run tasks without the bubblewrap sandbox: they can then read and write everything "
         u"the worker's user can. Only for machines without bubblewrap."_s},
        {flagName(configkey::ContainerRuntime),
         u"Run the tasks of jobs that name an image in a container of it: 'podman' (needs "
         u"podman and runc). Default: none, every task runs in the sandbox whatever its image."_s,
         u"runtime"_s},
        {flagName(configkey::NoNetwork),
         u"Give sandboxed tasks no network (a network namespace of their own)."_s},
        {flagName(configkey::AllowRoot),
         u"Run as root anyway. Tasks run as the worker's user, so as root they would get uid 0 "
         u"on this machine: run ddl-worker as an unprivileged user instead (the packaged "
         u"service runs as ddl-worker)."_s},
        {flagName(configkey::Backend),
         u"Where tasks run: 'local' (here, the default) or 'slurm' (each job as an sbatch job "
         u"of --partition, the worker announcing the partition's capacity; --work-dir must be "
         u"on a file system every node mounts at the same path; docs/slurm.md)."_s,
         u"backend"_s},
        {flagName(configkey::OnlyWhenIdle),
         u"Run tasks only while no other process computes on the GPUs (nvidia-smi); when the "
         u"owner starts one, running tasks are preempted and wait for another worker."_s},
        {flagName(configkey::Available),
         u"Run tasks only within these hours, e.g. \"Mon-Fri 19:00-07:00, Sat-Sun\" (local "
         u"time; days optional; a window may cross midnight). Default: any time."_s,
         u"hours"_s},
        {flagName(configkey::IdleInputMinutes),
         u"Run tasks only when nobody has typed at this machine's consoles and terminals or "
         u"used its input devices for this many minutes (fractions allowed); when somebody "
         u"does, running tasks are preempted. Linux only. Default: 0, input is not watched."_s,
         u"minutes"_s},
        {flagName(configkey::InputDevices),
         u"The files --idle-input-minutes watches, comma-separated, wildcards in the file "
         u"name allowed. Default: \"/dev/tty[0-9]*, /dev/pts/[0-9]*, /dev/input/event*\"."_s,
         u"paths"_s},
        {flagName(configkey::PreemptNotice),
         u"Seconds a preempted task has between SIGTERM and SIGKILL, also given to every task "
         u"as DDL_PREEMPT_NOTICE_S. Default: 30."_s,
         u"seconds"_s},
        {flagName(configkey::CheckpointInterval),
         u"Seconds between uploads of a running task's DDL_CHECKPOINT_DIR (only changed files "
         u"travel); 0: only when the task is preempted or fails. Default: 300."_s,
         u"seconds"_s},
        {flagName(configkey::Partition),
         u"The Slurm partition of --backend slurm (default: the cluster's default partition)."_s,
         u"name"_s},
    });
}

Result<WorkerConfig> WorkerConfig::fromParser(const QCommandLineParser &parser)
{
    WorkerConfig config;
    if (parser.isSet(u"config"_s)) {
        Result<WorkerConfig> fromFile = fromYamlFile(parser.value(u"config"_s));
        if (!fromFile)
            return fromFile.error();
        config = *fromFile;
        config.configFile = QFileInfo(parser.value(u"config"_s)).absoluteFilePath();
    }
    const QString origin = u"command line"_s;
    auto flag = [&](const char *key) -> std::optional<QString> {
        if (!parser.isSet(flagName(key)))
            return std::nullopt;
        return parser.value(flagName(key));
    };
    if (auto value = flag(configkey::Server)) {
        config.serverUrl = QUrl(*value);
        if (!config.serverUrl.isValid())
            return configError(origin, configkey::Server, u"is not a URL"_s);
    }
    if (auto value = flag(configkey::Token))
        config.enrollToken = *value;
    if (auto value = flag(configkey::CaCert))
        config.caCertFile = *value;
    if (auto value = flag(configkey::WorkDir))
        config.workDir = *value;
    if (auto value = flag(configkey::Name))
        config.name = *value;
    if (auto value = flag(configkey::Python))
        config.python = *value;
    if (auto value = flag(configkey::AdvertiseAddress))
        config.advertiseAddress = *value;
    if (auto value = flag(configkey::Gpus)) {
        const Result<int> gpus = parseCount(*value, origin, configkey::Gpus);
        if (!gpus)
            return gpus.error();
        config.gpus = *gpus;
    }
    if (auto value = flag(configkey::GpuType))
        config.gpuType = *value;
    if (auto value = flag(configkey::Slots)) {
        const Result<int> count = parseCount(*value, origin, configkey::Slots);
        if (!count)
            return count.error();
        config.slotCount = *count;
    }
    if (auto value = flag(configkey::ContainerRuntime))
        config.containerRuntime = *value;
    if (auto value = flag(configkey::Backend))
        config.backend = *value;
    if (auto value = flag(configkey::Partition))
        config.partition = *value;
    if (auto value = flag(configkey::CacheSize)) {
        const Result<qint64> size = parseCacheSize(*value, origin);
        if (!size)
            return size.error();
        config.cacheSizeBytes = *size;
    }
    if (auto value = flag(configkey::SampleInterval)) {
        const Result<int> interval = parseSampleInterval(*value, origin);
        if (!interval)
            return interval.error();
        config.sampleIntervalMs = *interval;
    }
    if (auto value = flag(configkey::Available)) {
        const Result<AvailabilityWindows> hours = parseAvailable(*value, origin);
        if (!hours)
            return hours.error();
        config.availableHours = *hours;
    }
    if (auto value = flag(configkey::PreemptNotice)) {
        const Result<int> notice = parsePreemptNotice(*value, origin);
        if (!notice)
            return notice.error();
        config.preemptNoticeS = *notice;
    }
    if (auto value = flag(configkey::IdleInputMinutes)) {
        const Result<qint64> idle = parseIdleInputMinutes(*value, origin);
        if (!idle)
            return idle.error();
        config.idleInputMs = *idle;
    }
    if (auto value = flag(configkey::InputDevices)) {
        const Result<QStringList> devices = parseInputDevices(*value, origin);
        if (!devices)
            return devices.error();
        config.inputDevices = *devices;
    }
    if (auto value = flag(configkey::TaskDiskLimit)) {
        const Result<qint64> limit = parseTaskDiskLimit(*value, origin);
        if (!limit)
            return limit.error();
        config.taskDiskLimitBytes = *limit;
    }
    if (auto value = flag(configkey::LendGpus)) {
        const Result<QStringList> gpus = parseLendGpus(*value, origin);
        if (!gpus)
            return gpus.error();
        config.lendGpus = *gpus;
    }
    if (auto value = flag(configkey::CheckpointInterval)) {
        const Result<int> interval = parseCheckpointInterval(*value, origin);
        if (!interval)
            return interval.error();
        config.checkpointIntervalS = *interval;
    }
    if (parser.isSet(flagName(configkey::OnlyWhenIdle)))
        config.onlyWhenIdle = true;
    if (parser.isSet(flagName(configkey::NoSandbox)))
        config.sandbox = false;
    if (parser.isSet(flagName(configkey::NoNetwork)))
        config.network = false;
    if (parser.isSet(flagName(configkey::AllowRoot)))
        config.allowRoot = true;
    config.applyDefaults();
    const Status valid = config.validate();
    if (!valid)
        return valid.error();
    return config;
}

void WorkerConfig::applyDefaults()
{
    if (name.isEmpty())
        name = QSysInfo::machineHostName();
    if (python.isEmpty())
        python = defaultPythonInterpreter();
    if (!workDir.isEmpty())
        workDir = QDir::cleanPath(QDir(workDir).absolutePath());
}

Status WorkerConfig::validate() const
{
    if (serverUrl.isEmpty()) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"no server given: pass --server https://HOST:PORT or set 'server' in "
                           u"worker.yaml"_s,
                           QString::fromLatin1(configkey::Server));
    }
    const QString scheme = serverUrl.scheme();
    if ((scheme != u"https" && scheme != u"http") || serverUrl.host().isEmpty()) {
        return Error::make(
            ErrorCode::InvalidConfig,
            u"the server URL '%1' must look like https://HOST:PORT"_s.arg(serverUrl.toString()),
            QString::fromLatin1(configkey::Server));
    }
    if (workDir.isEmpty()) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"no work folder given: pass --work-dir DIR or set 'work_dir' in "
                           u"worker.yaml"_s,
                           QString::fromLatin1(configkey::WorkDir));
    }
    if (gpus < -1)
        return configError(u"config"_s, configkey::Gpus, u"must be >= 0"_s);
    if (slotCount < 0)
        return configError(u"config"_s, configkey::Slots, u"must be >= 0"_s);
    if (!containerRuntime.isEmpty() && containerRuntime != u"podman" && containerRuntime != u"none")
        return configError(u"config"_s,
                           configkey::ContainerRuntime,
                           u"must be podman or none, got '%1'"_s.arg(containerRuntime));
    if (backend != u"local" && backend != u"slurm")
        return configError(u"config"_s,
                           configkey::Backend,
                           u"must be local or slurm, got '%1'"_s.arg(backend));
    static const QRegularExpression partitionName(
        QRegularExpression::anchoredPattern(u"[A-Za-z0-9_.-]{0,64}"_s));
    if (!partitionName.match(partition).hasMatch())
        return configError(u"config"_s,
                           configkey::Partition,
                           u"must be a Slurm partition name (letters, digits, '_', '.', '-')"_s);
    // A Slurm worker's tasks run on the cluster's nodes, not on a machine with one owner.
    if (backend == u"slurm" && onlyWhenIdle)
        return configError(u"config"_s, configkey::OnlyWhenIdle, u"needs --backend local"_s);
    if (backend == u"slurm" && !availableHours.isEmpty())
        return configError(u"config"_s, configkey::Available, u"needs --backend local"_s);
    if (backend == u"slurm" && taskDiskLimitBytes > 0)
        return configError(u"config"_s, configkey::TaskDiskLimit, u"needs --backend local"_s);
    if (backend == u"slurm" && !lendGpus.isEmpty())
        return configError(u"config"_s, configkey::LendGpus, u"needs --backend local"_s);
    if (backend == u"slurm" && idleInputMs > 0)
        return configError(u"config"_s, configkey::IdleInputMinutes, u"needs --backend local"_s);
    if (idleInputMs > 0 && !InputActivity::isSupported()) {
        return configError(u"config"_s,
                           configkey::IdleInputMinutes,
                           u"is available on Linux only: this system's input idle time is "
                           u"unknown to ddl-worker; leave it out (--available hours and "
                           u"--only-when-idle work here)"_s);
    }
    if (!inputDevices.isEmpty() && idleInputMs <= 0)
        return configError(u"config"_s,
                           configkey::InputDevices,
                           u"needs --idle-input-minutes: without it input is not watched"_s);
    if (!partition.isEmpty() && backend != u"slurm")
        return configError(u"config"_s, configkey::Partition, u"needs --backend slurm"_s);
    // A Slurm step runs as the worker's user on a node, outside bubblewrap: the owner says so.
    if (backend == u"slurm" && sandbox) {
        return configError(u"config"_s,
                           configkey::Backend,
                           u"slurm runs tasks as the worker's user on the cluster's nodes, "
                           u"without the bubblewrap sandbox, so a task can read the worker's "
                           u"token (WORK_DIR/worker.json) and other tasks' files in the shared "
                           u"work folder; add --no-sandbox (no_sandbox: true) to accept that on a "
                           u"cluster whose DDL users you trust (docs/slurm.md)"_s);
    }
    // The server refuses other labels: they are shown to users and matched by jobs.
    static const QRegularExpression printable(
        QRegularExpression::anchoredPattern(u"[^\\p{C}]{0,100}"_s));
    if (!printable.match(gpuType).hasMatch()) {
        return configError(u"config"_s,
                           configkey::GpuType,
                           u"must be at most 100 printable characters on one line"_s);
    }
    if (!sandbox && !network) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"--no-network needs the sandbox: it cannot be combined with "
                           u"--no-sandbox"_s,
                           QString::fromLatin1(configkey::NoNetwork));
    }
    if (!caCertFile.isEmpty() && !QFileInfo(caCertFile).isFile()) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"the CA certificate file %1 does not exist"_s.arg(caCertFile),
                           QString::fromLatin1(configkey::CaCert));
    }
    return Ok{};
}

Status WorkerConfig::checkUser(bool runsAsRoot) const
{
    if (!runsAsRoot || allowRoot)
        return Ok{};
    return Error::make(ErrorCode::InvalidConfig,
                       u"refusing to run as root: tasks run as the worker's user, so they would "
                       u"get uid 0 on this machine. Run ddl-worker as an unprivileged user (sudo "
                       u"-u ddl-worker ddl-worker ..., or the packaged ddl-worker.service), or "
                       u"pass --allow-root (allow_root: true in worker.yaml) to run as root "
                       u"anyway"_s,
                       QString::fromLatin1(configkey::AllowRoot));
}

QString defaultPythonInterpreter()
{
    const QString system = u"/usr/bin/python3"_s;
    if (QFileInfo(system).isExecutable())
        return system;
    const QString onPath = QStandardPaths::findExecutable(u"python3"_s);
    return onPath.isEmpty() ? u"python3"_s : onPath;
}

} // namespace ddl::worker
