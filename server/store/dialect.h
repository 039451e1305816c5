#pragma once

#include <QSqlDatabase>
#include <QString>

namespace ddl::server {

// The SQL engines the store runs on. Statements are written once, in SQL both understand; only
// the schema's column types differ, and inDialect() maps those.
enum class SqlDialect { Sqlite, Postgres };

SqlDialect dialectOf(const QSqlDatabase &db);

// A migration statement as the dialect needs it. The migrations are written in SQLite's words;
// for PostgreSQL "INTEGER PRIMARY KEY [AUTOINCREMENT]" becomes an identity column, INTEGER becomes BIGINT (the
// store's times are milliseconds), BLOB becomes BYTEA and the column named offset (a reserved
// word there) is quoted. Portable SQL passes through unchanged.
QString inDialect(const QString &statement, SqlDialect dialect);

} // namespace ddl::server
