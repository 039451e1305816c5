#pragma once

#include "core/result.h"

#include <QSqlDatabase>
#include <QString>

namespace ddl::server {

// Opens the store and brings its schema up to date through the numbered migrations in
// migrations.cpp: the SQLite file of a data dir in WAL mode by default, or the PostgreSQL database
// of databaseUrl (postgresql://..., see DatabaseUrl). One connection per thread (connections are
// not shared between threads).
class Database
{
public:
    static Result<QSqlDatabase>
    open(const QString &dataDir, const QString &connectionName, const QString &databaseUrl = {});
    // A connection to the PostgreSQL database of databaseUrl, without migrating it.
    static Result<QSqlDatabase> connectPostgres(const QString &databaseUrl,
                                                const QString &connectionName);
    static int schemaVersion();
    // This thread's own connection to the store the connection named mainConnection is open
    // on: the same SQLite file or PostgreSQL database, set up the same way. Opened on the
    // thread's first call, closed when the thread ends. For pool threads that write beside the
    // event loop (writers still take turns: WriteTurn); the event loop's own read-then-writes
    // must end their reads first (runSql).
    static Result<QSqlDatabase> forThisThread(const QString &mainConnection);
    // Closes this thread's own connection after a failure: the next forThisThread opens a fresh
    // one (a PostgreSQL connection the server dropped still reads as open).
    static void dropThisThread();

private:
    static Result<QSqlDatabase> openSqlite(const QString &dataDir, const QString &connectionName);
    // What every connection needs before its first statement (pragmas, session settings).
    static Status configure(const QSqlDatabase &db);
    static Status migrate(const QSqlDatabase &db);
};

} // namespace ddl::server
