#include "usagesampler.h"

#include "monitor/gpupoller.h"
#include "workerlogging.h"

#include <QDateTime>
#include <QProcess>
#include <QSet>

using namespace Qt::StringLiterals;

namespace ddl::worker {

UsageSampler::UsageSampler(int intervalMs, const QString &nvidiaSmi, QObject *parent)
    : QObject(parent)
    , m_intervalMs(intervalMs)
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &UsageSampler::sample);
    if (!nvidiaSmi.isEmpty()) {
        m_gpus = new GpuPoller(nvidiaSmi, this);
        m_gpus->setTimeout(std::clamp(intervalMs * 2, 2000, 10000));
    }
}

UsageSampler::~UsageSampler()
{
    if (m_inspect) {
        m_inspect->disconnect(this);
        m_inspect->kill();
        m_inspect->waitForFinished(1000);
    }
}

void UsageSampler::start()
{
    m_clock.start();
    if (m_gpus)
        m_gpus->poll(); // so that the first round has readings
    sample();
    m_timer.start();
}

void UsageSampler::stop()
{
    m_timer.stop();
}

double UsageSampler::cpuPercentSince(Baseline &baseline, qint64 cpuTicks, qint64 nowMs) const
{
    const Baseline before = std::exchange(baseline, Baseline{cpuTicks, nowMs});
    if (before.cpuTicks < 0 || nowMs <= before.atMonotonicMs)
        return -1;
    const double seconds = double(nowMs - before.atMonotonicMs) / 1000.0;
    const double cpuSeconds =
        double(std::max<qint64>(0, cpuTicks - before.cpuTicks)) / procusage::ticksPerSecond();
    return cpuSeconds / seconds * 100.0;
}

double UsageSampler::cpuPercentSinceStart(const procusage::TreeUsage &tree, qint64 uptimeTicks)
{
    const qint64 ticks = procusage::ticksPerSecond();
    const qint64 lived = uptimeTicks - tree.rootStartTicks;
    // Under a tenth of a second the clock's resolution (ticks) says nothing.
    if (uptimeTicks < 0 || tree.rootStartTicks <= 0 || lived * 10 < ticks)
        return -1;
    return double(tree.cpuTicks) / double(lived) * 100.0;
}

void UsageSampler::sample()
{
    const qint64 now = m_clock.elapsed();
    const qint64 at = QDateTime::currentMSecsSinceEpoch();
    // Readings from the query started last round; older ones say nothing of now.
    const QList<GpuReading> gpus =
        m_gpus ? m_gpus->latest(3 * qint64(m_intervalMs) + 10000) : QList<GpuReading>();
    const QList<SampledTask> tasks = m_source ? m_source() : QList<SampledTask>();
    const QHash<qint64, procusage::ProcessUsage> processes =
        tasks.isEmpty() ? QHash<qint64, procusage::ProcessUsage>() : procusage::readProcesses();
    const qint64 uptime = tasks.isEmpty() ? -1 : procusage::uptimeTicks();

    QSet<qint64> seen;
    for (const SampledTask &task : tasks) {
        const qint64 root =
            task.containerName.isEmpty() ? task.rootPid : containerPid(task.containerName);
        const procusage::TreeUsage tree = procusage::treeUsage(processes, root);
        if (tree.processes == 0)
            continue; // not started yet, or just ended
        seen.insert(task.taskId);
        const bool first = !m_tasks.contains(task.taskId);
        double cpu = cpuPercentSince(m_tasks[task.taskId], tree.cpuTicks, now);
        if (first)
            cpu = cpuPercentSinceStart(tree, uptime);
        if (cpu < 0)
            continue;
        UtilisationSample sample{at, cpu, tree.residentBytes, {}};
        for (const GpuReading &gpu : gpus) {
            if (task.gpuIndices.contains(gpu.index))
                sample.gpus.append(gpu);
        }
        emit taskSampled(task.taskId, sample);
    }
    m_tasks.removeIf([&seen](auto it) { return !seen.contains(it.key()); });
    for (auto it = m_containerPids.begin(); it != m_containerPids.end();) {
        const bool running = std::any_of(tasks.cbegin(), tasks.cend(), [&](const SampledTask &t) {
            return t.containerName == it.key();
        });
        it = running ? std::next(it) : m_containerPids.erase(it);
    }

    const procusage::HostUsage host = procusage::readHostUsage();
    const double hostCpu = cpuPercentSince(m_host, host.busyTicks, now);
    if (hostCpu >= 0)
        emit hostSampled(UtilisationSample{at, hostCpu, host.memoryUsedBytes, gpus});
    if (m_gpus)
        m_gpus->poll();
}

qint64 UsageSampler::containerPid(const QString &name)
{
    const qint64 known = m_containerPids.value(name);
    if (known > 0 || m_inspect || m_podman.isEmpty())
        return known;
    m_inspect = new QProcess(this);
    connect(m_inspect, &QProcess::finished, this, [this, name](int exitCode) {
        QProcess *inspect = std::exchange(m_inspect, nullptr);
        inspect->deleteLater();
        const qint64 pid = inspect->readAllStandardOutput().trimmed().toLongLong();
        if (exitCode == 0 && pid > 1)
            m_containerPids.insert(name, pid);
    });
    connect(m_inspect, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            std::exchange(m_inspect, nullptr)->deleteLater();
    });
    // Not waited for: the pid is used from the next round on.
    m_inspect->start(m_podman, {u"inspect"_s, u"--format"_s, u"{{.State.Pid}}"_s, name});
    QTimer::singleShot(10000, m_inspect, &QProcess::kill);
    return 0;
}

} // namespace ddl::worker
