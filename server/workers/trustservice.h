#pragma once

#include "core/result.h"
#include "trustscore.h"

#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>

namespace ddl::server {

// One worker's trust as shown and as the scheduler uses it (docs/trust.md).
struct WorkerTrust
{
    qint64 workerId = 0;
    int score = 0;
    bool verified = false;    // passed its latest canary
    bool quarantined = false; // gets no tasks until the admin releases it
    QString quarantineReason;

    // "quarantined", "verified" or "unverified".
    QString stateName() const;
    // {"trust", "trust_state", "quarantine_reason" when quarantined}, merged into a worker's
    // JSON in GET /v1/workers.
    QJsonObject toJson() const;
};

// Keeps what a worker's trust is computed from (TrustScore) in the store, and its quarantine.
// The server records heartbeats and losses; JobStore::endTask counts tasks; CanaryService
// records canaries; `ddl-server workers` quarantines and releases.
class TrustService
{
public:
    explicit TrustService(const QSqlDatabase &db);

    // The columns of the workers table that trustOf() reads: id and scoreColumns().
    static const QString Columns;
    // Those the score and state come from, each prefixed with the workers table's alias
    // ("w.uptime_ms, ..."), for queries that join workers to other tables.
    static QString scoreColumns(const QString &alias);
    static WorkerTrust trustOf(const QSqlQuery &row);

    // Adds the time since the worker's last heartbeat to its uptime, unless that gap was longer
    // than a worker that answers leaves (then it was silent, not up).
    Status recordHeartbeat(qint64 workerId, qint64 now);
    static constexpr qint64 MaxHeartbeatGapMs = 60000;
    // The worker went silent and was marked LOST.
    Status recordLoss(qint64 workerId);
    // A canary's verdict: passed verifies the worker; failed quarantines it with the reason.
    // nextCanaryAt: when it gets its next one.
    Status recordCanary(qint64 workerId, bool passed, const QString &reason, qint64 nextCanaryAt);

    Result<WorkerTrust> trust(qint64 workerId);
    // For `ddl-server workers quarantine|release`: NotFound for an unknown worker. A released
    // worker is unverified: with canaries on, it runs a canary before any other task.
    Status quarantine(qint64 workerId, const QString &reason);
    Status release(qint64 workerId);

private:
    QSqlDatabase m_db;
};

} // namespace ddl::server
