#pragma once

#include "core/result.h"

#include <QSqlDatabase>
#include <QString>

namespace ddl::server {

// Opens the SQLite store of a data dir in WAL mode and brings its schema up to date through the
// numbered migrations in migrations.cpp. One Database per thread (SQLite connections are not
// shared between threads).
class Database
{
public:
    static Result<QSqlDatabase> open(const QString &dataDir, const QString &connectionName);
    static int schemaVersion();

private:
    static Status migrate(const QSqlDatabase &db);
};

} // namespace ddl::server
