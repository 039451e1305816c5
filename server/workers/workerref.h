#pragma once

#include <QString>

namespace ddl::server {

// A worker enrolled with the server, as resolved from its bearer token.
struct WorkerRef
{
    qint64 id = 0;
    QString name;
};

} // namespace ddl::server
