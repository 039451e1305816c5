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

private:
    static Result<QSqlDatabase> openSqlite(const QString &dataDir, const QString &connectionName);
    static Status migrate(const QSqlDatabase &db);
};

} // namespace ddl::server
