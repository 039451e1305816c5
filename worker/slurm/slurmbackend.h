#pragma once

#include "core/result.h"
#include "slurm/slurmallocation.h"
#include "wire/tasklease.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ddl::worker {

class TaskExecution;

// The worker's Slurm backend (ddl-worker --backend slurm): the partition's capacity from sinfo
// is the worker's; the tasks of a job attempt leased together become one Slurm job
// (SlurmAllocation) with a step per task (SlurmStep); one `squeue --json` every second follows
// all of them.
class SlurmBackend : public QObject
{
    Q_OBJECT
public:
    SlurmBackend(const SlurmSettings &settings,
                 const QString &tasksRoot,
                 QObject *parent = nullptr);

    // sinfo --json, waited for (at the worker's start).
    Result<SlurmCapacity> readCapacity() const;
    // The tasks of one lease answer: those of the same job attempt share a Slurm job.
    void planJobs(const QList<TaskLease> &leases);
    // The execution of a leased task (TaskServices::executionFactory).
    TaskExecution *createStep(const TaskLease &lease, QObject *parent);
    // A leased task is over here; one that ended before its step (failed preparation, cancel)
    // must not keep its gang's Slurm job waiting.
    void taskEnded(qint64 taskId);

private:
    void poll();
    void handleSqueue(const QByteArray &json);

    SlurmSettings m_settings;
    QString m_tasksRoot;
    QHash<qint64, QPointer<SlurmAllocation>> m_byTask;
    QTimer m_pollTimer;
    bool m_polling = false;
    QString m_lastPollError;
};

} // namespace ddl::worker
