#pragma once

#include "slurm/slurmjson.h"
#include "wire/tasklease.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>

namespace ddl::worker {

class SlurmStep;

// How the worker reaches Slurm: the partition its jobs go to and the client programs.
struct SlurmSettings
{
    QString partition;
    QString sbatch = QStringLiteral("sbatch");
    QString squeue = QStringLiteral("squeue");
    QString scancel = QStringLiteral("scancel");
    QString sinfo = QStringLiteral("sinfo");
    QString srun = QStringLiteral("srun");
    QString scontrol = QStringLiteral("scontrol");
    int commandTimeoutMs = 30000;
};

// The tasks of one DDL job attempt that were leased to this worker together, as one Slurm job
// (SlurmJobPlan). It waits until every one is prepared (their SlurmSteps are started), submits
// with sbatch, takes the job's status from the backend's squeue polls (pending reasons go to the
// steps as waiting(), an end the steps did not see as their failure), and scancels the job when
// a step is terminated or when no step is left while the job lives.
class SlurmAllocation : public QObject
{
    Q_OBJECT
public:
    // members: the leases of the tasks, in the order of their steps.
    SlurmAllocation(const SlurmSettings &settings,
                    const QString &folder,
                    const QList<TaskLease> &members,
                    QObject *parent = nullptr);
    ~SlurmAllocation() override;

    // The step's index among the members; -1: not one.
    int indexOf(qint64 taskId) const;
    const QList<TaskLease> &members() const { return m_members; }
    // A step whose files are written; when every member's is, the job is submitted.
    void stepReady(SlurmStep *step);
    // The member's task is over here (its step went away, or it ended before it had one).
    void memberGone(qint64 taskId);
    void cancel();

    qint64 jobId() const { return m_jobId; }
    bool isSubmitted() const { return m_jobId > 0; }
    bool hasEnded() const { return m_ended; }
    // A squeue answer (nullptr: squeue no longer lists the job: it ended long enough ago).
    void handleStatus(const SlurmJobStatus *status);
    QList<int> memberPorts() const;
    QStringList memberHostKeys() const;
    const SlurmSettings &settings() const { return m_settings; }

private:
    void submit();
    void end(const QString &description);

    SlurmSettings m_settings;
    QString m_folder;
    QList<TaskLease> m_members;
    QList<QPointer<SlurmStep>> m_steps; // by member index; null: not ready (or gone)
    QSet<qint64> m_gone;                // members whose task is over here
    qint64 m_jobId = 0;
    bool m_submitting = false;
    QString m_lastState;
    bool m_cancelled = false;
    bool m_ended = false;
};

} // namespace ddl::worker
