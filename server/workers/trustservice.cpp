#include "trustservice.h"

#include "store/sql.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

QString WorkerTrust::stateName() const
{
    return quarantined ? u"quarantined"_s : verified ? u"verified"_s : u"unverified"_s;
}

QJsonObject WorkerTrust::toJson() const
{
    QJsonObject object{{u"trust"_s, score}, {u"trust_state"_s, stateName()}};
    if (quarantined)
        object.insert(u"quarantine_reason"_s, quarantineReason);
    return object;
}

static const QStringList ScoreColumns{u"uptime_ms"_s,
                                       u"heartbeat_losses"_s,
                                       u"tasks_ended"_s,
                                       u"tasks_failed_by_worker"_s,
                                       u"canaries_passed"_s,
                                       u"canaries_failed"_s,
                                       u"verified"_s,
                                       u"quarantined"_s,
                                       u"quarantine_reason"_s};

const QString TrustService::Columns = u"id, "_s + ScoreColumns.join(u", "_s);

QString TrustService::scoreColumns(const QString &alias)
{
    QStringList qualified;
    for (const QString &column : ScoreColumns)
        qualified << alias + u'.' + column;
    return qualified.join(u", "_s);
}

TrustService::TrustService(const QSqlDatabase &db)
    : m_db(db)
{
}

WorkerTrust TrustService::trustOf(const QSqlQuery &row)
{
    TrustInputs inputs;
    inputs.uptimeMs = row.value(u"uptime_ms"_s).toLongLong();
    inputs.heartbeatLosses = row.value(u"heartbeat_losses"_s).toInt();
    inputs.tasksEnded = row.value(u"tasks_ended"_s).toInt();
    inputs.tasksFailedByWorker = row.value(u"tasks_failed_by_worker"_s).toInt();
    inputs.canariesPassed = row.value(u"canaries_passed"_s).toInt();
    inputs.canariesFailed = row.value(u"canaries_failed"_s).toInt();
    inputs.quarantined = row.value(u"quarantined"_s).toBool();
    WorkerTrust trust;
    trust.workerId = row.value(u"id"_s).toLongLong();
    trust.score = TrustScore::of(inputs);
    trust.verified = row.value(u"verified"_s).toBool();
    trust.quarantined = inputs.quarantined;
    trust.quarantineReason = row.value(u"quarantine_reason"_s).toString();
    return trust;
}

static Status done(const Result<QSqlQuery> &query)
{
    return query ? Status(Ok{}) : Status(query.error());
}

Status TrustService::recordHeartbeat(qint64 workerId, qint64 now)
{
    return done(runSql(m_db,
                       u"UPDATE workers SET uptime_ms = uptime_ms + (? - last_seen) WHERE id = ? "
                       "AND state IN ('ONLINE', 'OWNER_BUSY') AND last_seen BETWEEN ? AND ?"_s,
                       {now, workerId, now - MaxHeartbeatGapMs, now}));
}

Status TrustService::recordLoss(qint64 workerId)
{
    return done(runSql(m_db,
                       u"UPDATE workers SET heartbeat_losses = heartbeat_losses + 1 WHERE id = ?"_s,
                       {workerId}));
}

Status
TrustService::recordCanary(qint64 workerId, bool passed, const QString &reason, qint64 nextCanaryAt)
{
    if (passed) {
        return done(runSql(m_db,
                           u"UPDATE workers SET canaries_passed = canaries_passed + 1, verified = "
                           "1, next_canary_at = ? WHERE id = ?"_s,
                           {nextCanaryAt, workerId}));
    }
    return done(runSql(m_db,
                       u"UPDATE workers SET canaries_failed = canaries_failed + 1, verified = 0, "
                       "quarantined = 1, quarantine_reason = ?, next_canary_at = ? WHERE id = ?"_s,
                       {reason, nextCanaryAt, workerId}));
}

static Error noWorker(qint64 workerId)
{
    return Error::make(
        ErrorCode::NotFound,
        u"no worker %1 on this server; see the ids with ddl-server workers list"_s.arg(workerId),
        u"worker"_s);
}

Result<WorkerTrust> TrustService::trust(qint64 workerId)
{
    Result<QSqlQuery> row =
        runSql(m_db, u"SELECT "_s + Columns + u" FROM workers WHERE id = ?"_s, {workerId});
    if (!row)
        return row.error();
    if (!row->next())
        return noWorker(workerId);
    return trustOf(*row);
}

Status TrustService::quarantine(qint64 workerId, const QString &reason)
{
    Result<QSqlQuery> marked = runSql(m_db,
                                      u"UPDATE workers SET quarantined = 1, verified = 0, "
                                      "quarantine_reason = ? WHERE id = ?"_s,
                                      {reason, workerId});
    if (!marked)
        return marked.error();
    return marked->numRowsAffected() > 0 ? Status(Ok{}) : Status(noWorker(workerId));
}

Status TrustService::release(qint64 workerId)
{
    // Unverified and due for a canary at once (when canaries are on).
    Result<QSqlQuery> released = runSql(m_db,
                                        u"UPDATE workers SET quarantined = 0, verified = 0, "
                                        "quarantine_reason = '', next_canary_at = 0 WHERE id = ?"_s,
                                        {workerId});
    if (!released)
        return released.error();
    return released->numRowsAffected() > 0 ? Status(Ok{}) : Status(noWorker(workerId));
}

} // namespace ddl::server
