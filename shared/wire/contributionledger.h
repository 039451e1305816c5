#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace ddl {

// What a worker gave the pool (docs/owners.md, "Contribution ledger"), as GET
// /v1/workers/<id>/ledger and GET /v1/ledger answer it: the sums over the task attempts that
// ended on it and the bytes it moved, within the asked period.
struct LedgerTotals
{
    double gpuSeconds = 0;         // GPUs held x wall time of each task attempt
    double cpuCoreSeconds = 0;     // CPU cores reserved x wall time
    double cpuSecondsMeasured = 0; // CPU time the tasks used, estimated from utilisation samples
    qint64 tasksRun = 0;           // task attempts that ended on the worker, whatever their end
    qint64 tasksSucceeded = 0;
    qint64 tasksFailed = 0;
    qint64 preemptions = 0;     // attempts the owner took the machine back from
    qint64 jobs = 0;            // distinct jobs among those attempts
    qint64 bytesDownloaded = 0; // code, datasets and images the worker fetched
    qint64 bytesUploaded = 0;   // outputs and logs it sent

    double gpuHours() const { return gpuSeconds / 3600.0; }
    double cpuCoreHours() const { return cpuCoreSeconds / 3600.0; }

    QJsonObject toJson() const;
    static LedgerTotals fromJson(const QJsonObject &object);
    friend bool operator==(const LedgerTotals &, const LedgerTotals &) = default;
};

// One worker's ledger.
struct WorkerLedger
{
    QString workerId;
    QString name;
    QString owner; // the owner's email; empty when the worker has none
    LedgerTotals totals;

    QJsonObject toJson() const;
    static WorkerLedger fromJson(const QJsonObject &object);
};

// An owner's ledger: each of their workers, and all of them summed.
struct OwnerLedger
{
    QList<WorkerLedger> workers;
    LedgerTotals total;

    QJsonObject toJson() const;
    static OwnerLedger fromJson(const QJsonObject &object);
};

} // namespace ddl
