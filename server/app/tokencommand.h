#pragma once

#include "core/result.h"

namespace ddl::server {

// `ddl-server token create --data-dir DIR [--database URL] [--owner EMAIL]`: adds a worker
// enrollment token to the store and returns it. The workers it enrolls belong to the user with
// that email (they read those workers' contribution ledger); without one, to nobody. Safe while
// the server runs: SQLite's WAL, or PostgreSQL, share it.
Result<QString> createEnrollToken(const QString &dataDir, const QString &database = {},
                                  const QString &ownerEmail = {});

} // namespace ddl::server
