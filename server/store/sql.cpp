#include "sql.h"

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

Result<QSqlQuery> runSql(const QSqlDatabase &db, const QString &sql, const QVariantList &binds)
{
    QSqlQuery query(db);
    if (!query.prepare(sql))
        return sqlError(sql, query.lastError());
    for (const QVariant &value : binds)
        query.addBindValue(value);
    if (!query.exec())
        return sqlError(sql, query.lastError());
    return query;
}

Transaction::Transaction(const QSqlDatabase &db)
    : m_db(db)
{}

Transaction::~Transaction()
{
    if (m_open)
        (void) runSql(m_db, QStringLiteral("ROLLBACK"));
}

Status Transaction::begin()
{
    const bool sqlite = m_db.driverName() == QLatin1String("QSQLITE");
    Result<QSqlQuery> query = runSql(m_db, sqlite ? QStringLiteral("BEGIN IMMEDIATE")
                                                  : QStringLiteral("BEGIN"));
    if (!query)
        return query.error();
    m_open = true;
    return Ok{};
}

Status Transaction::commit()
{
    Result<QSqlQuery> query = runSql(m_db, QStringLiteral("COMMIT"));
    if (!query)
        return query.error();
    m_open = false;
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
