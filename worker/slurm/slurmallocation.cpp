#include "slurmallocation.h"

#include "slurm/slurmcommand.h"
#include "slurm/slurmscript.h"
#include "slurm/slurmstep.h"
#include "workerlogging.h"

#include <QDir>
#include <QFile>
#include <QProcess>

using namespace Qt::StringLiterals;

namespace ddl::worker {

SlurmAllocation::SlurmAllocation(const SlurmSettings &settings,
                                 const QString &folder,
                                 const QList<TaskLease> &members,
                                 QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_folder(folder)
    , m_members(members)
{
    m_steps.resize(members.size());
}

SlurmAllocation::~SlurmAllocation()
{
    cancel();
}

int SlurmAllocation::indexOf(qint64 taskId) const
{
    for (qsizetype i = 0; i < m_members.size(); ++i) {
        if (m_members[i].taskId == taskId)
            return int(i);
    }
    return -1;
}

QList<int> SlurmAllocation::memberPorts() const
{
    QList<int> ports;
    for (const TaskLease &member : m_members)
        ports << member.port;
    return ports;
}

QStringList SlurmAllocation::memberHostKeys() const
{
    QStringList keys;
    for (const TaskLease &member : m_members)
        keys << u"PAI_HOST_IP_%1_%2"_s.arg(member.role).arg(member.roleIndex);
    return keys;
}

void SlurmAllocation::stepReady(SlurmStep *step)
{
    const int index = indexOf(step->lease().taskId);
    if (index < 0)
        return;
    m_steps[index] = step;
    if (std::all_of(m_steps.cbegin(), m_steps.cend(), [](const QPointer<SlurmStep> &ready) {
            return !ready.isNull();
        }))
        submit();
}

void SlurmAllocation::memberGone(qint64 taskId)
{
    const int index = indexOf(taskId);
    if (index < 0 || m_gone.contains(taskId))
        return;
    m_gone.insert(taskId);
    m_steps[index] = nullptr;
    // Every task of it is over (ended, cancelled, failed before its step, or the worker is
    // stopping): nothing of it may run on.
    if (m_gone.size() >= m_members.size()) {
        cancel();
        // While sbatch runs, its answer is awaited: the job it may have made is cancelled then.
        if (!m_submitting || isSubmitted() || m_ended)
            deleteLater();
    }
}

void SlurmAllocation::submit()
{
    if (m_submitting || m_cancelled)
        return;
    m_submitting = true;
    SlurmJobPlan plan;
    const TaskLease &first = m_members.first();
    plan.name = u"ddl-%1-%2"_s.arg(first.jobName.isEmpty() ? first.jobUuid : first.jobName)
                    .arg(first.attempt);
    plan.partition = m_settings.partition;
    plan.folder = m_folder;
    plan.srun = m_settings.srun;
    plan.scontrol = m_settings.scontrol;
    qint64 memoryMb = 0;
    for (qsizetype i = 0; i < m_members.size(); ++i) {
        plan.cpusPerTask = std::max(plan.cpusPerTask, m_members[i].cpus);
        plan.gpusPerTask = std::max(plan.gpusPerTask, m_members[i].gpus);
        memoryMb = std::max(memoryMb, m_members[i].memoryMb);
        plan.steps << m_steps[i]->files();
    }
    if (memoryMb > 0)
        plan.memoryPerCpuMb = (memoryMb + plan.cpusPerTask - 1) / plan.cpusPerTask;
    QFile script(plan.batchScriptPath());
    const QByteArray text = plan.batchScript();
    if (!QDir().mkpath(m_folder) || !script.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        script.write(text) != text.size()) {
        end(u"cannot write the Slurm batch script %1"_s.arg(plan.batchScriptPath()));
        return;
    }
    script.close();
    auto *command = new SlurmCommand(
        m_settings.sbatch, plan.sbatchArguments(), m_settings.commandTimeoutMs, this);
    connect(command, &SlurmCommand::finished, this, [this, command] {
        const Result<qint64> id = command->result() ? parseSbatchParsable(*command->result())
                                                    : Result<qint64>(command->result().error());
        if (!id) {
            qCWarning(lcWorkerSlurm).noquote() << "sbatch:" << id.error().message;
            for (const QPointer<SlurmStep> &step : std::as_const(m_steps)) {
                if (step)
                    step->handleSubmitFailed(u"Slurm refused the job: "_s + id.error().message);
            }
            m_ended = true;
            if (m_gone.size() >= m_members.size())
                deleteLater();
            return;
        }
        m_jobId = *id;
        qCInfo(lcWorkerSlurm).noquote()
            << u"Slurm job %1 submitted for %2 task(s) of job %3"_s.arg(m_jobId)
                   .arg(m_members.size())
                   .arg(m_members.first().jobUuid);
        if (m_cancelled) { // cancelled while sbatch ran
            m_cancelled = false;
            cancel();
        }
        if (m_gone.size() >= m_members.size())
            deleteLater();
    });
    command->start();
}

void SlurmAllocation::handleStatus(const SlurmJobStatus *status)
{
    if (!isSubmitted() || m_ended)
        return;
    if (status && !status->isFinal()) {
        if (status->isPending()) {
            const QString reason = u"Slurm job %1 is pending: %2"_s.arg(m_jobId).arg(
                describeSlurmReason(status->reason));
            for (const QPointer<SlurmStep> &step : std::as_const(m_steps)) {
                if (step)
                    step->handleJobWaiting(reason);
            }
        }
        return;
    }
    QString description = u"Slurm job %1 ended"_s.arg(m_jobId);
    if (status) {
        description += u" as %1"_s.arg(status->state);
        if (!status->reason.isEmpty() && status->reason != u"None")
            description += u" (%1)"_s.arg(status->reason);
    }
    end(description);
}

void SlurmAllocation::end(const QString &description)
{
    m_ended = true;
    for (const QPointer<SlurmStep> &step : std::as_const(m_steps)) {
        if (step)
            step->handleJobEnded(description);
    }
}

void SlurmAllocation::cancel()
{
    if (m_cancelled || m_ended)
        return;
    m_cancelled = true;
    if (!isSubmitted())
        return; // submit() sees it (or sbatch's answer does)
    qCInfo(lcWorkerSlurm).noquote() << "scancel Slurm job" << m_jobId;
    // Not waited for: the step sees the job end through squeue like any other end.
    QProcess::startDetached(m_settings.scancel, {QString::number(m_jobId)});
}

} // namespace ddl::worker
