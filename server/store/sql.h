#pragma once

#include "core/result.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QJsonValue>
#include <QVariantList>

namespace ddl::server {

// Prepares, binds and runs one statement; a failure becomes an Error naming the statement.
Result<QSqlQuery> runSql(const QSqlDatabase &db, const QString &sql, const QVariantList &binds = {});

// An immediate write transaction (BEGIN IMMEDIATE, as read-then-write needs on SQLite) that
// rolls back unless commit() succeeded.
class Transaction
{
public:
    explicit Transaction(const QSqlDatabase &db);
    ~Transaction();
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;

    Status begin();
    Status commit();

private:
    QSqlDatabase m_db;
    bool m_open = false;
};

// Milliseconds since the epoch, the store's one time unit.
qint64 nowMs();
// ISO 8601 text for the wire; null for 0.
QJsonValue isoTime(qint64 ms);

} // namespace ddl::server
