#include "sql.h"

#include "dialect.h"

#include <QDateTime>
#include <QJsonValue>
#include <QSqlError>

namespace ddl::server {

static Error sqlError(const QString &sql, const QSqlError &error)
{
    return Error::make(
        ErrorCode::Internal,
        QStringLiteral("store error in \"%1\": %2").arg(sql.simplified().left(80), error.text()));
}

// Whether a statement changes the store (so takes a turn among its writers on SQLite).
static bool writes(QStringView sql)
{
    sql = sql.trimmed();
    for (QStringView verb : {u"INSERT", u"UPDATE", u"DELETE", u"REPLACE"}) {
        if (sql.startsWith(verb, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

Result<QSqlQuery> runSql(const QSqlDatabase &db, const QString &sql, const QVariantList &binds)
{
    // SQLite has one writer at a time for the whole file: a write outside a Transaction waits
    // for its turn here (WriteTurn), not in SQLite's busy handler.
    std::optional<WriteTurn> turn;
    if (writes(sql) && dialectOf(db) == SqlDialect::Sqlite)
        turn.emplace();
    QSqlQuery query(db);
    // Without values, run it as it is: PostgreSQL prepares only SELECT, INSERT, UPDATE, DELETE
    // and VALUES, not BEGIN, SET, NOTIFY or the migrations' DDL.
    if (binds.isEmpty()) {
        if (!query.exec(sql))
            return sqlError(sql, query.lastError());
        return query;
    }
    if (!query.prepare(sql))
        return sqlError(sql, query.lastError());
    for (const QVariant &value : binds)
        query.addBindValue(value);
    if (!query.exec())
        return sqlError(sql, query.lastError());
    return query;
}

Result<qint64>
insertReturningId(const QSqlDatabase &db, const QString &insert, const QVariantList &binds)
{
    // Outside a Transaction the insert commits at finish(), below: the turn lasts until then.
    const WriteTurn turn;
    Result<QSqlQuery> query = runSql(db, insert + QStringLiteral(" RETURNING id"), binds);
    if (!query)
        return query.error();
    if (!query->next())
        return sqlError(insert, query->lastError());
    const qint64 id = query->value(0).toLongLong();
    // SQLite ends the statement only when it is finished; a COMMIT before would fail.
    query->finish();
    return id;
}

Transaction::Transaction(const QSqlDatabase &db)
    : m_db(db)
{
}

Transaction::~Transaction()
{
    if (m_open)
        (void)runSql(m_db, QStringLiteral("ROLLBACK"));
}

Status Transaction::begin()
{
    Q_ASSERT(!m_open && !m_turn); // once per Transaction
    m_turn.emplace();
    const bool sqlite = dialectOf(m_db) == SqlDialect::Sqlite;
    Result<QSqlQuery> query =
        runSql(m_db, sqlite ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("BEGIN"));
    if (!query) {
        m_turn.reset();
        return query.error();
    }
    m_open = true;
    if (!sqlite) {
        // One key for the whole store (the letters "ddlw"); released by COMMIT or ROLLBACK.
        if (Result<QSqlQuery> locked = runSql(
                m_db, QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(StoreWriteLockKey));
            !locked)
            return locked.error();
    }
    return Ok{};
}

Status Transaction::commit()
{
    Result<QSqlQuery> query = runSql(m_db, QStringLiteral("COMMIT"));
    if (!query)
        return query.error();
    m_open = false;
    m_turn.reset();
    return Ok{};
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QJsonValue isoTime(qint64 ms)
{
    if (ms <= 0)
        return QJsonValue::Null;
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace ddl::server
