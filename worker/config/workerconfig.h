#pragma once

#include "core/result.h"
#include "owner/availabilitywindows.h"

#include <QString>
#include <QStringList>
#include <QUrl>

class QCommandLineParser;

namespace ddl::worker {

// The keys of worker.yaml, in one place. The command-line flag of a key is the key with '-'
// for '_' (work_dir → --work-dir).
namespace configkey {
inline constexpr char Server[] = "server";
inline constexpr char Token[] = "token";
inline constexpr char CaCert[] = "ca_cert";
inline constexpr char WorkDir[] = "work_dir";
inline constexpr char Name[] = "name";
inline constexpr char Python[] = "python";
inline constexpr char AdvertiseAddress[] = "advertise_address";
inline constexpr char Gpus[] = "gpus";
inline constexpr char GpuType[] = "gpu_type";
inline constexpr char Slots[] = "slots";
inline constexpr char NoSandbox[] = "no_sandbox";
inline constexpr char NoNetwork[] = "no_network";
inline constexpr char CacheSize[] = "cache_size";
inline constexpr char ContainerRuntime[] = "container_runtime";
inline constexpr char AllowRoot[] = "allow_root";
inline constexpr char Backend[] = "backend";
inline constexpr char Partition[] = "partition";
inline constexpr char SampleInterval[] = "sample_interval";
inline constexpr char OnlyWhenIdle[] = "only_when_idle";
inline constexpr char Available[] = "available";
inline constexpr char PreemptNotice[] = "preempt_notice";
inline constexpr char IdleInputMinutes[] = "idle_input_minutes";
inline constexpr char InputDevices[] = "input_devices";
inline constexpr char LendGpus[] = "lend_gpus";
inline constexpr char TaskDiskLimit[] = "task_disk_limit";
inline constexpr char CheckpointInterval[] = "checkpoint_interval";
} // namespace configkey

// Everything the worker is told at start: read from worker.yaml (--config), then overridden by
// the flags that are given, then completed with defaults and validated.
struct WorkerConfig
{
    QUrl serverUrl;
    QString enrollToken;      // only needed until the worker has enrolled (WORK_DIR/worker.json)
    QString caCertFile;       // empty: the system's CAs
    QString workDir;          // absolute once loaded
    QString name;             // shown by the server; default: the host name
    QString python;           // interpreter of DDL tasks and the base of venvs
    QString advertiseAddress; // PAI_CURRENT_CONTAINER_IP; empty: first non-loopback IPv4
    int gpus = -1;            // -1: detect with nvidia-smi; N >= 0: declare N GPUs
    QString gpuType;          // matched by a job's gpuType; empty: the detected GPUs' model
    int slotCount = 0;        // tasks at once; 0: defaultSlotCount (one per CPU)
    bool sandbox = true;      // false (--no-sandbox): tasks run unconfined
    bool network = true;      // false (--no-network): sandboxed tasks get no network
    qint64 cacheSizeBytes = 0; // limit of WORK_DIR/cache (--cache-size 20G); 0: no limit
    QString configFile;       // the worker.yaml read, if any (hidden from tasks: it holds a token)
    // "podman": tasks whose job names an image run in a container of it; empty: every task runs
    // in the sandbox, whatever its image.
    QString containerRuntime;
    // Run as root anyway (--allow-root): tasks then get uid 0 on the owner's machine.
    bool allowRoot = false;
    // "slurm": every task runs as a step of a Slurm job in `partition` (docs/slurm.md) and the
    // worker announces the partition's capacity; "local" (the default): tasks run here.
    QString backend = QStringLiteral("local");
    QString partition; // Slurm's partition; empty: the cluster's default
    // How often the worker measures its tasks and machine (CPU, memory, GPUs) for the server's
    // utilisation graphs (--sample-interval 5, seconds, fractions allowed); 0: never.
    int sampleIntervalMs = 5000;
    // The owner's say (docs/owners.md): tasks run only within these hours (--available
    // "Mon-Fri 19:00-07:00"; empty: any time) and, with --only-when-idle, only while no other
    // process computes on the GPUs. Tasks running when that stops get SIGTERM and
    // preemptNoticeS seconds (DDL_PREEMPT_NOTICE_S) before SIGKILL, and wait for another worker.
    AvailabilityWindows availableHours;
    bool onlyWhenIdle = false;
    int preemptNoticeS = 30;
    // --idle-input-minutes: tasks run only when nothing touched the consoles, terminals and
    // input devices (inputDevices; empty: InputActivity::defaultPatterns()) for this long; 0: off.
    qint64 idleInputMs = 0;
    QStringList inputDevices;
    // --lend-gpus 0,2: the GPUs (nvidia-smi indexes or UUIDs) tasks may use; the worker
    // announces only these. Empty: every GPU.
    QStringList lendGpus;
    // --task-disk-limit 20G: a task whose folder (code, outputs, scratch; not the dataset's links
    // to the cache) grows past this fails, checked every diskCheckIntervalMs. 0: no limit.
    qint64 taskDiskLimitBytes = 0;

    // How often a running task's DDL_CHECKPOINT_DIR is uploaded (--checkpoint-interval, seconds;
    // docs/checkpoints.md); 0: only when it is preempted or fails.
    int checkpointIntervalS = 300;

    // Timings of the daemon; not configurable by users, shortened by tests.
    int heartbeatIntervalMs = 1000; // also how soon a cancel reaches the task
    int leaseIntervalMs = 250;
    int logFlushIntervalMs = 100;
    int killGraceMs = 3000; // SIGTERM, then SIGKILL: a cancel ends within 1 s + 3 s
    int enrollRetryMs = 5000;
    int ownerCheckIntervalMs = 2000; // how often the owner's policy is checked
    int diskCheckIntervalMs = 5000;  // how often the tasks' folders are measured
    QString bubblewrapPath; // empty: Sandbox::defaultBubblewrapPath()

    // Reads worker.yaml. Unknown keys and values of the wrong type are errors that name the key.
    static Result<WorkerConfig> fromYaml(const QByteArray &yaml, const QString &origin);
    static Result<WorkerConfig> fromYamlFile(const QString &path);

    // Declares the worker's flags (--server, --token, --config, ...) on parser.
    static void addOptions(QCommandLineParser &parser);
    // The config of a parsed command line: --config first, the other flags over it, then the
    // defaults; validated.
    static Result<WorkerConfig> fromParser(const QCommandLineParser &parser);

    // Fills what was left empty (name, python) and makes workDir absolute.
    void applyDefaults();
    Status validate() const;
    // Refuses to run tasks as root (the worker's user is theirs) unless allowRoot, saying how
    // to run it unprivileged.
    Status checkUser(bool runsAsRoot) const;
};

// /usr/bin/python3 when it exists (Debian's python3-numpy lives there), else python3 on PATH.
QString defaultPythonInterpreter();

} // namespace ddl::worker
