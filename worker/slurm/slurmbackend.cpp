#include "slurmbackend.h"

#include "slurm/slurmcommand.h"
#include "slurm/slurmstep.h"
#include "workerlogging.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {
constexpr int PollIntervalMs = 1000;
}

SlurmBackend::SlurmBackend(const SlurmSettings &settings, const QString &tasksRoot, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_tasksRoot(tasksRoot)
{
    m_pollTimer.setInterval(PollIntervalMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &SlurmBackend::poll);
    m_pollTimer.start();
}

Result<SlurmCapacity> SlurmBackend::readCapacity() const
{
    QStringList arguments{u"--json"_s};
    if (!m_settings.partition.isEmpty())
        arguments << u"--partition=%1"_s.arg(m_settings.partition);
    const Result<QByteArray> json =
        SlurmCommand::runBlocking(m_settings.sinfo, arguments, m_settings.commandTimeoutMs);
    if (!json)
        return json.error();
    return parseSinfoJson(*json, m_settings.partition);
}

void SlurmBackend::planJobs(const QList<TaskLease> &leases)
{
    QHash<QString, QList<TaskLease>> byJob;
    QStringList order;
    for (const TaskLease &lease : leases) {
        if (m_byTask.contains(lease.taskId))
            continue; // the same lease again
        const QString key = lease.jobUuid + u'#' + QString::number(lease.attempt);
        if (!byJob.contains(key))
            order << key;
        byJob[key] << lease;
    }
    for (const QString &key : std::as_const(order)) {
        const QList<TaskLease> &members = byJob[key];
        const QString folder = u"%1/slurm-%2"_s.arg(m_tasksRoot).arg(members.first().taskId);
        auto *allocation = new SlurmAllocation(m_settings, folder, members, this);
        for (const TaskLease &member : members)
            m_byTask.insert(member.taskId, allocation);
    }
}

TaskExecution *SlurmBackend::createStep(const TaskLease &lease, QObject *parent)
{
    QPointer<SlurmAllocation> allocation = m_byTask.take(lease.taskId);
    if (!allocation) // leased alone, outside a lease answer: a job of its own
        allocation = new SlurmAllocation(
            m_settings, u"%1/slurm-%2"_s.arg(m_tasksRoot).arg(lease.taskId), {lease}, this);
    return new SlurmStep(lease, allocation, parent);
}

void SlurmBackend::taskEnded(qint64 taskId)
{
    if (QPointer<SlurmAllocation> allocation = m_byTask.take(taskId))
        allocation->memberGone(taskId);
}

void SlurmBackend::poll()
{
    if (m_polling)
        return;
    QStringList ids;
    for (SlurmAllocation *allocation :
         findChildren<SlurmAllocation *>(Qt::FindDirectChildrenOnly)) {
        if (allocation->isSubmitted() && !allocation->hasEnded())
            ids << QString::number(allocation->jobId());
    }
    if (ids.isEmpty())
        return;
    m_polling = true;
    auto *command =
        new SlurmCommand(m_settings.squeue,
                         {u"--json"_s, u"--states=all"_s, u"--jobs=%1"_s.arg(ids.join(u','))},
                         m_settings.commandTimeoutMs,
                         this);
    connect(command, &SlurmCommand::finished, this, [this, command] {
        m_polling = false;
        if (command->result()) {
            m_lastPollError.clear();
            handleSqueue(*command->result());
        } else if (command->result().error().message.contains(u"Invalid job id"_s)) {
            // squeue forgets a job MinJobAge after it ended; asked for it alone, it says so.
            handleSqueue(QByteArrayLiteral("{\"jobs\": []}"));
        } else if (command->result().error().message != m_lastPollError) {
            m_lastPollError = command->result().error().message;
            qCWarning(lcWorkerSlurm).noquote() << "squeue:" << m_lastPollError;
        }
    });
    command->start();
}

void SlurmBackend::handleSqueue(const QByteArray &json)
{
    const Result<QList<SlurmJobStatus>> jobs = parseSqueueJson(json);
    if (!jobs) {
        qCWarning(lcWorkerSlurm).noquote() << "squeue:" << jobs.error().message;
        return;
    }
    QHash<qint64, SlurmJobStatus> byId;
    for (const SlurmJobStatus &job : *jobs)
        byId.insert(job.jobId, job);
    for (SlurmAllocation *allocation :
         findChildren<SlurmAllocation *>(Qt::FindDirectChildrenOnly)) {
        if (!allocation->isSubmitted() || allocation->hasEnded())
            continue;
        const auto found = byId.constFind(allocation->jobId());
        allocation->handleStatus(found == byId.constEnd() ? nullptr : &*found);
    }
}

} // namespace ddl::worker
