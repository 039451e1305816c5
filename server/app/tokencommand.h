#pragma once

#include "core/result.h"

namespace ddl::server {

// `ddl-server token create --data-dir DIR`: adds a worker enrollment token to the store and
// returns it. Safe while the server runs: the store is shared through SQLite's WAL.
Result<QString> createEnrollToken(const QString &dataDir);

} // namespace ddl::server
