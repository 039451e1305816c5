#include "ownerpolicy.h"

#include "owner/gpuprocessprobe.h"
#include "workerlogging.h"

#include <QHash>
#include <QSet>

using namespace Qt::StringLiterals;

namespace ddl::worker {

QList<qint64> foreignProcesses(const QList<qint64> &gpuPids,
                               const QList<qint64> &taskLeaders,
                               const QList<processtree::ProcessEntry> &table)
{
    const QSet<qint64> leaders(taskLeaders.cbegin(), taskLeaders.cend());
    QHash<qint64, processtree::ProcessEntry> byPid;
    for (const processtree::ProcessEntry &entry : table)
        byPid.insert(entry.pid, entry);
    QList<qint64> foreign;
    for (const qint64 pid : gpuPids) {
        bool ours = false;
        // Up the parents (bounded: a table read while processes come and go may have a loop).
        qint64 current = pid;
        for (int depth = 0; depth < 64 && current > 1 && !ours; ++depth) {
            const auto entry = byPid.constFind(current);
            ours = leaders.contains(current)
                   || (entry != byPid.cend() && leaders.contains(entry->groupId));
            if (entry == byPid.cend())
                break;
            current = entry->parentPid;
        }
        if (!ours)
            foreign.append(pid);
    }
    return foreign;
}

OwnerPolicy::OwnerPolicy(const Settings &settings,
                         std::function<QList<qint64>()> taskLeaders,
                         QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_taskLeaders(std::move(taskLeaders))
{
    m_timer.setInterval(m_settings.checkIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &OwnerPolicy::check);
    if (m_settings.onlyWhenIdle) {
        m_probe = new GpuProcessProbe(m_settings.nvidiaSmi, this);
        connect(m_probe, &GpuProcessProbe::answered, this, &OwnerPolicy::handleGpuProcesses);
        connect(m_probe, &GpuProcessProbe::failed, this, [this](const QString &why) {
            // The last answer stands; said once until nvidia-smi answers again.
            if (!std::exchange(m_probeFailureLogged, true))
                qCWarning(lcWorkerAgent).noquote()
                    << u"cannot tell whether the owner uses the GPU: %1"_s.arg(why);
        });
    }
}

void OwnerPolicy::start()
{
    check();
    m_timer.start();
}

QString OwnerPolicy::refusal() const
{
    return m_outsideHours.isEmpty() ? m_gpuBusy : m_outsideHours;
}

QString OwnerPolicy::describe() const
{
    QStringList rules;
    if (!m_settings.hours.isEmpty())
        rules << u"tasks run only within %1"_s.arg(m_settings.hours.text());
    if (m_settings.onlyWhenIdle)
        rules << u"only while no other process uses the GPU (%1)"_s.arg(m_settings.nvidiaSmi);
    return rules.join(u", "_s);
}

void OwnerPolicy::check()
{
    const bool inside =
        m_settings.hours.isEmpty() || m_settings.hours.contains(QDateTime::currentDateTime());
    update(inside ? QString()
                  : u"outside the hours the owner lends the machine (%1)"_s.arg(
                        m_settings.hours.text()),
           m_gpuBusy);
    if (m_probe)
        m_probe->probe();
}

void OwnerPolicy::handleGpuProcesses(const QList<qint64> &pids)
{
    m_probeFailureLogged = false;
    const QList<qint64> foreign =
        pids.isEmpty() ? pids : foreignProcesses(pids, m_taskLeaders(), processtree::processTable());
    QStringList shown;
    for (const qint64 pid : foreign)
        shown << QString::number(pid);
    update(m_outsideHours,
           foreign.isEmpty() ? QString()
                             : u"the owner is using the GPU (process %1)"_s.arg(shown.join(u", "_s)));
}

void OwnerPolicy::update(const QString &outsideHours, const QString &gpuBusy)
{
    const QString before = refusal();
    m_outsideHours = outsideHours;
    m_gpuBusy = gpuBusy;
    // Whether tasks may run is the news; a changed process list of a busy GPU is not.
    if (before.isEmpty() != refusal().isEmpty())
        emit changed(refusal());
}

} // namespace ddl::worker
