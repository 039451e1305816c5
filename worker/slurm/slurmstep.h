#pragma once

#include "runner/taskexecution.h"
#include "slurm/slurmscript.h"
#include "wire/tasklease.h"

#include <QPointer>
#include <QTimer>

namespace ddl::worker {

class SlurmAllocation;

// One DDL task as a step of a Slurm job (TaskExecution). start() writes the step's script and
// environment into the task's folder and hands the step to its allocation, which submits the job
// once every task of the gang is ready. The step then follows its files: `started` (the task's
// code began: started()), stdout/stderr (appended pieces become output()), `exit` (its exit
// status: finished()). The allocation tells it when the Slurm job waits (waiting()) or ended
// without the step's exit status.
class SlurmStep : public TaskExecution
{
    Q_OBJECT
public:
    SlurmStep(const TaskLease &lease, SlurmAllocation *allocation, QObject *parent = nullptr);
    ~SlurmStep() override;

    void start(const LaunchSpec &spec) override;
    // scancel of the whole Slurm job: a DDL job ends all its tasks together.
    void terminate(int graceMs) override;
    // From the start of the task's code until its end. A step still pending in Slurm's queue is
    // not running: a cancel then ends the task at once, and the Slurm job is cancelled when
    // the last task of its gang is gone (SlurmAllocation::memberGone).
    bool isRunning() const override;
    QString describe() const override;

    const TaskLease &lease() const { return m_lease; }
    const SlurmStepFiles &files() const { return m_files; }
    bool isReady() const { return m_ready; }
    // From the allocation.
    void handleJobWaiting(const QString &reason);
    void handleJobEnded(const QString &description);
    void handleSubmitFailed(const QString &message);

private:
    void poll();
    // Up to maxBytes of what the file gained since offset, as output (-1: all of it).
    void readNew(const QString &path, qint64 &offset, LogSource source, qint64 maxBytes);
    void finish(int exitCode, const QString &description);

    TaskLease m_lease;
    QPointer<SlurmAllocation> m_allocation;
    SlurmStepFiles m_files;
    QTimer m_pollTimer;
    qint64 m_stdoutOffset = 0;
    qint64 m_stderrOffset = 0;
    bool m_ready = false;
    bool m_started = false;
    bool m_done = false;
    QString m_lastReason;
};

} // namespace ddl::worker
