#pragma once

#include "core/result.h"
#include "wire/contributionledger.h"

#include <QSqlDatabase>

#include <limits>
#include <optional>

namespace ddl::server {

// The period a ledger is asked for: task attempts that ended in [sinceMs, untilMs), bytes moved
// in the hours that begin in it.
struct LedgerPeriod
{
    qint64 sinceMs = 0;
    qint64 untilMs = std::numeric_limits<qint64>::max();

    // ?since=&until= as ISO 8601 times (2026-11-01T00:00:00Z); either may be left out.
    static Result<LedgerPeriod> fromText(const QString &since, const QString &until);
};

// The contribution ledger (docs/owners.md): what each worker gave, written as it happens and
// never recomputed from the utilisation samples (those are thinned and purged). A task attempt
// is written once, when it ends, in the transaction that ends it; its task id keys the row, so a
// resent end counts once. Bytes are summed per worker and hour.
class LedgerStore
{
public:
    explicit LedgerStore(const QSqlDatabase &db)
        : m_db(db)
    {
    }

    // The ended task attempt into its worker's ledger: GPUs and CPU cores it held times its
    // wall time (from the start its worker reported to its end), its outcome (preempted: the
    // owner took the machine back) and the CPU time its samples show. Nothing for a task no
    // worker held; nothing more for one already written.
    Status recordTaskEnd(qint64 taskId, bool preempted);
    // Bytes a worker fetched from the server (downloaded) or sent to it (uploaded). The transfer
    // itself went well: a ledger that cannot be written is logged, not the caller's error.
    void addTransfer(qint64 workerId, qint64 downloaded, qint64 uploaded);
    // Bytes uploaded by an upload owner ("worker:<id>" counts; a user's uploads do not).
    void addUploadedBy(const QString &uploadOwner, qint64 bytes);

    // The user who owns the worker; nullopt for no such worker, 0 for a worker without owner.
    Result<std::optional<qint64>> ownerOf(qint64 workerId);
    Result<WorkerLedger> workerLedger(qint64 workerId, const LedgerPeriod &period);
    // Every worker the user owns, and their sum.
    Result<OwnerLedger> ownerLedger(qint64 userId, const LedgerPeriod &period);

private:
    // The CPU time the task's utilisation samples show, in milliseconds.
    Result<qint64> measuredCpuMs(qint64 taskId, qint64 startedAt);
    // The sums over the workers that `workers` (a SELECT of worker ids) names.
    Result<LedgerTotals>
    totals(const QString &workers, const QVariantList &binds, const LedgerPeriod &period);

    QSqlDatabase m_db;
};

} // namespace ddl::server
