#pragma once

#include "core/result.h"

namespace ddl::server {

// `ddl-server token create --data-dir DIR [--database URL]`: adds a worker enrollment token to
// the store and returns it. Safe while the server runs: SQLite's WAL, or PostgreSQL, share it.
Result<QString> createEnrollToken(const QString &dataDir, const QString &database = {});

} // namespace ddl::server
