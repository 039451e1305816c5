#include "ownerpolicy.h"

#include "gpu/nvidiasmiquery.h"
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
    , m_input(settings.inputDevices)
{
    m_timer.setInterval(m_settings.checkIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &OwnerPolicy::check);
    makeProbe();
}

void OwnerPolicy::makeProbe()
{
    delete std::exchange(m_probe, nullptr);
    if (!m_settings.onlyWhenIdle)
        return;
    m_probe = new NvidiaSmiQuery(m_settings.nvidiaSmi,
                                 {QString::fromLatin1(ComputeAppsQuery), u"--format=csv,noheader"_s},
                                 this);
    connect(m_probe, &NvidiaSmiQuery::answered, this, [this](const QByteArray &csv) {
        handleGpuProcesses(parseComputeApps(csv));
    });
    connect(m_probe, &NvidiaSmiQuery::failed, this, [this](const QString &why) {
        // The last answer stands; said once until nvidia-smi answers again.
        if (!std::exchange(m_probeFailureLogged, true))
            qCWarning(lcWorkerAgent).noquote()
                << u"cannot tell whether the owner uses the GPU: %1"_s.arg(why);
    });
}

void OwnerPolicy::reconfigure(const Settings &settings)
{
    const bool sameProbe = settings.onlyWhenIdle == m_settings.onlyWhenIdle
                           && settings.nvidiaSmi == m_settings.nvidiaSmi;
    m_settings = settings;
    m_input = InputActivity(settings.inputDevices);
    m_timer.setInterval(settings.checkIntervalMs);
    if (!sameProbe)
        makeProbe();
    // A GPU found busy stays so until the next answer; without the rule it is no reason.
    update(outsideHours(), inputBusy(), m_settings.onlyWhenIdle ? m_gpuBusy : QString());
    if (m_probe)
        m_probe->run();
}

void OwnerPolicy::start()
{
    check();
    m_timer.start();
}

QString OwnerPolicy::refusal() const
{
    if (!m_outsideHours.isEmpty())
        return m_outsideHours;
    return m_inputBusy.isEmpty() ? m_gpuBusy : m_inputBusy;
}

QString OwnerPolicy::describe() const
{
    QStringList rules;
    if (!m_settings.hours.isEmpty())
        rules << u"tasks run only within %1"_s.arg(m_settings.hours.text());
    if (m_settings.idleInputMs > 0)
        rules << u"only after %1 s without input at %2"_s.arg(m_settings.idleInputMs / 1000.0)
                     .arg(m_settings.inputDevices.join(u' '));
    if (m_settings.onlyWhenIdle)
        rules << u"only while no other process uses %1 (%2)"_s.arg(
            m_settings.watchedGpus.isEmpty() ? u"any GPU"_s
                                             : u"GPU "_s + m_settings.watchedGpus.join(u", "_s),
            m_settings.nvidiaSmi);
    return rules.isEmpty() ? u"none"_s : rules.join(u", "_s);
}

void OwnerPolicy::check()
{
    update(outsideHours(), inputBusy(), m_gpuBusy);
    if (m_probe)
        m_probe->run();
}

QString OwnerPolicy::outsideHours() const
{
    if (m_settings.hours.isEmpty() || m_settings.hours.contains(QDateTime::currentDateTime()))
        return {};
    return u"outside the hours the owner lends the machine (%1)"_s.arg(m_settings.hours.text());
}

void OwnerPolicy::handleGpuProcesses(const QList<ComputeApp> &apps)
{
    m_probeFailureLogged = false;
    QList<qint64> pids;
    for (const ComputeApp &app : apps) {
        // A process on a GPU the owner keeps is theirs to run.
        if (m_settings.watchedGpus.isEmpty() || m_settings.watchedGpus.contains(app.gpuUuid))
            pids << app.pid;
    }
    const QList<qint64> foreign =
        pids.isEmpty() ? pids : foreignProcesses(pids, m_taskLeaders(), processtree::processTable());
    QStringList shown;
    for (const qint64 pid : foreign)
        shown << QString::number(pid);
    update(m_outsideHours,
           m_inputBusy,
           foreign.isEmpty() ? QString()
                             : u"the owner is using the GPU (process %1)"_s.arg(shown.join(u", "_s)));
}

QString OwnerPolicy::inputBusy() const
{
    if (m_settings.idleInputMs <= 0)
        return {};
    const InputActivity::Latest latest = m_input.latest();
    if (!latest.at.isValid())
        return {}; // none of the files exists now: the worker said so at start
    const qint64 sinceMs = std::max<qint64>(0, latest.at.msecsTo(QDateTime::currentDateTime()));
    if (sinceMs >= m_settings.idleInputMs)
        return {};
    return u"the owner is at the machine (input at %1 %2 s ago, less than %3 s)"_s.arg(latest.path)
        .arg(sinceMs / 1000)
        .arg(m_settings.idleInputMs / 1000.0);
}

void OwnerPolicy::update(const QString &outsideHours, const QString &inputBusy, const QString &gpuBusy)
{
    const QString before = refusal();
    m_outsideHours = outsideHours;
    m_inputBusy = inputBusy;
    m_gpuBusy = gpuBusy;
    // Whether tasks may run is the news; a changed process list of a busy GPU is not.
    if (before.isEmpty() != refusal().isEmpty())
        emit changed(refusal());
}

} // namespace ddl::worker
