#include "contributionledger.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace ddl {

QJsonObject LedgerTotals::toJson() const
{
    return {{u"gpu_seconds"_s, gpuSeconds},
            {u"cpu_core_seconds"_s, cpuCoreSeconds},
            {u"cpu_seconds_measured"_s, cpuSecondsMeasured},
            {u"tasks_run"_s, tasksRun},
            {u"tasks_succeeded"_s, tasksSucceeded},
            {u"tasks_failed"_s, tasksFailed},
            {u"preemptions"_s, preemptions},
            {u"jobs"_s, jobs},
            {u"bytes_downloaded"_s, bytesDownloaded},
            {u"bytes_uploaded"_s, bytesUploaded}};
}

LedgerTotals LedgerTotals::fromJson(const QJsonObject &object)
{
    LedgerTotals totals;
    totals.gpuSeconds = object.value(u"gpu_seconds"_s).toDouble();
    totals.cpuCoreSeconds = object.value(u"cpu_core_seconds"_s).toDouble();
    totals.cpuSecondsMeasured = object.value(u"cpu_seconds_measured"_s).toDouble();
    totals.tasksRun = object.value(u"tasks_run"_s).toInteger();
    totals.tasksSucceeded = object.value(u"tasks_succeeded"_s).toInteger();
    totals.tasksFailed = object.value(u"tasks_failed"_s).toInteger();
    totals.preemptions = object.value(u"preemptions"_s).toInteger();
    totals.jobs = object.value(u"jobs"_s).toInteger();
    totals.bytesDownloaded = object.value(u"bytes_downloaded"_s).toInteger();
    totals.bytesUploaded = object.value(u"bytes_uploaded"_s).toInteger();
    return totals;
}

QJsonObject WorkerLedger::toJson() const
{
    QJsonObject object = totals.toJson();
    object.insert(u"worker_id"_s, workerId);
    object.insert(u"name"_s, name);
    object.insert(u"owner"_s, owner.isEmpty() ? QJsonValue() : QJsonValue(owner));
    return object;
}

WorkerLedger WorkerLedger::fromJson(const QJsonObject &object)
{
    return {object.value(u"worker_id"_s).toString(),
            object.value(u"name"_s).toString(),
            object.value(u"owner"_s).toString(),
            LedgerTotals::fromJson(object)};
}

QJsonObject OwnerLedger::toJson() const
{
    QJsonArray list;
    for (const WorkerLedger &worker : workers)
        list.append(worker.toJson());
    return {{u"workers"_s, list}, {u"total"_s, total.toJson()}};
}

OwnerLedger OwnerLedger::fromJson(const QJsonObject &object)
{
    OwnerLedger ledger;
    for (const QJsonValue &worker : object.value(u"workers"_s).toArray())
        ledger.workers.append(WorkerLedger::fromJson(worker.toObject()));
    ledger.total = LedgerTotals::fromJson(object.value(u"total"_s).toObject());
    return ledger;
}

} // namespace ddl
