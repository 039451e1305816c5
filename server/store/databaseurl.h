#pragma once

#include "core/result.h"

#include <QString>

namespace ddl::server {

// Where a PostgreSQL store is: `--database postgresql://user:password@host:port/dbname`, or over a
// unix socket `postgresql://user@/dbname?host=/run/postgresql` (and port=, which names the
// socket file). Also sslmode, sslrootcert and connect_timeout as query items, passed to libpq.
struct DatabaseUrl
{
    QString host; // a name, an address, or a socket folder (starts with '/')
    int port = 5432;
    QString user;
    QString password;
    QString name;
    QString connectOptions; // "sslmode=require;connect_timeout=10" for QPSQL

    static Result<DatabaseUrl> parse(const QString &text);
    // The URL with its password replaced by "***": what logs and errors may show.
    static QString redacted(const QString &text);
};

} // namespace ddl::server
