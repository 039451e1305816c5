#pragma once

#include "core/result.h"
#include "writeturn.h"

#include <QJsonValue>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariantList>

#include <optional>

namespace ddl::server {

// Prepares, binds and runs one statement; a failure becomes an Error naming the statement.
// A SELECT's read lasts until its query is finished or destroyed (Qt's SQLite driver stops after
// the row asked for): a write on the same connection meanwhile fails at once, with no waiting, if
// another connection (a batch thread's, `ddl-server token create`) holds the write lock or wrote
// since the read began. So a read-then-write copies what it needs and calls finish() before it
// writes, or runs in a Transaction begun before the read (a BEGIN after it fails the same way).
Result<QSqlQuery>
runSql(const QSqlDatabase &db, const QString &sql, const QVariantList &binds = {});

// Runs an INSERT into a table with an id column and returns the new row's id (RETURNING id: both
// SQLite and PostgreSQL know it, where QSqlQuery::lastInsertId() works only on SQLite).
Result<qint64>
insertReturningId(const QSqlDatabase &db, const QString &insert, const QVariantList &binds = {});

// A write transaction that rolls back unless commit() succeeded. Writers take turns, as
// read-then-write needs: first among this process's writers (WriteTurn), then BEGIN IMMEDIATE on
// SQLite; on PostgreSQL an advisory lock for the transaction, held by one transaction of all
// servers on the database at a time. Both make read-then-write safe without retries.
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
    std::optional<WriteTurn> m_turn; // from begin() to COMMIT or ROLLBACK
};

// PostgreSQL advisory lock keys, the same in every server on one database.
inline constexpr qint64 StoreWriteLockKey = 0x64646c77; // "ddlw": Transaction
inline constexpr qint64 SchedulerLockKey = 0x64646c73;  // "ddls": Leadership

// Milliseconds since the epoch, the store's one time unit.
qint64 nowMs();
// ISO 8601 text for the wire; null for 0.
QJsonValue isoTime(qint64 ms);

} // namespace ddl::server
