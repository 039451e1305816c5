#pragma once

#include "monitor/procusage.h"
#include "wire/utilisationsample.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>
#include <functional>

class QProcess;

namespace ddl::worker {

class GpuPoller;

// A running task as the sampler measures it: the process tree under rootPid, or, for a task in
// a container, the tree under the container's first process (found with podman inspect).
struct SampledTask
{
    qint64 taskId = 0;
    qint64 rootPid = 0;
    QString containerName; // empty: not in a container
    QList<int> gpuIndices;
};

// Measures the worker's running tasks and the machine every interval: CPU (percent of one core,
// from the CPU time of the task's process tree in /proc between two rounds), resident memory,
// and nvidia-smi's readings of the task's GPUs (of every GPU for the machine). A task's first
// sample is its average since it started; the machine's first comes a round later.
class UsageSampler : public QObject
{
    Q_OBJECT
public:
    // nvidiaSmi: the program to ask for GPU readings; empty: the worker has none to read.
    UsageSampler(int intervalMs, const QString &nvidiaSmi, QObject *parent = nullptr);
    ~UsageSampler() override;

    void setTaskSource(std::function<QList<SampledTask>()> source) { m_source = std::move(source); }
    void setPodmanProgram(const QString &program) { m_podman = program; }
    void start();
    void stop();

signals:
    void taskSampled(qint64 taskId, const ddl::UtilisationSample &sample);
    void hostSampled(const ddl::UtilisationSample &sample);

private:
    struct Baseline
    {
        qint64 cpuTicks = -1; // -1: none yet
        qint64 atMonotonicMs = 0;
    };
    void sample();
    // CPU percent of one core since the baseline, which it then moves; -1 the first time.
    double cpuPercentSince(Baseline &baseline, qint64 cpuTicks, qint64 nowMs) const;
    // The first time a task is seen: its tree's CPU time over the time since its first process
    // started, so a task has a sample from the first round on; -1 when that is too short to say.
    static double cpuPercentSinceStart(const procusage::TreeUsage &tree, qint64 uptimeTicks);
    // The pid of the container's first process, once podman inspect said it; 0 until then.
    qint64 containerPid(const QString &name);

    int m_intervalMs;
    QTimer m_timer;
    QElapsedTimer m_clock;
    GpuPoller *m_gpus = nullptr;
    std::function<QList<SampledTask>()> m_source;
    QHash<qint64, Baseline> m_tasks;
    Baseline m_host;
    QString m_podman;
    QHash<QString, qint64> m_containerPids;
    QProcess *m_inspect = nullptr; // one podman inspect at a time
};

} // namespace ddl::worker
