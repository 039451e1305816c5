#pragma once

#include "runner/logindex.h"

#include <QByteArray>
#include <QObject>
#include <QString>

namespace ddl::worker {

struct LaunchSpec;

// Where a task's process runs: on this machine (TaskProcess) or as a step of a cluster's job
// (SlurmStep). TaskRunner prepares the task, hands the LaunchSpec to one of these and follows
// its signals; everything around the process (logs, outputs, reports) is the same for both.
class TaskExecution : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Emits started() once the task's own code runs, or finished() with a message when it
    // cannot start.
    virtual void start(const LaunchSpec &spec) = 0;
    // Ends the task: a grace period for it to stop, then it is killed.
    virtual void terminate(int graceMs) = 0;
    virtual bool isRunning() const = 0;
    // Says where it runs, for the worker's log ("pid 4711", "Slurm job 12").
    virtual QString describe() const = 0;
    // The process on this machine, for utilisation samples (UsageSampler); 0 where the task
    // runs elsewhere (a Slurm step's node).
    virtual qint64 processId() const { return 0; }

signals:
    void started();
    void output(const QByteArray &bytes, ddl::worker::LogSource source);
    // exitCode is the process's exit status; -1 when it did not start or was killed by a signal.
    void finished(int exitCode, const QString &description);
    // Why the task waits before it starts (a cluster's pending reason); told when it changes.
    void waiting(const QString &reason);
};

} // namespace ddl::worker
