#pragma once

#include "wire/contributionledger.h"

#include <QStringList>

namespace ddl::worker {

// `ddl-worker report`: what this worker gave the pool, from the server's contribution ledger
// (docs/owners.md). It reads the worker's own config (--config or the same flags as the
// daemon: server, CA, work folder) and signs in with the worker token it enrolled with.
// arguments are the whole command line ("ddl-worker", "report", ...); returns the exit status.
int runLedgerReport(const QStringList &arguments);

// The ledger as the owner reads it: "GPU-hours given: 12.500 (45000 GPU-seconds)", ...
QString ledgerText(const WorkerLedger &ledger);

} // namespace ddl::worker
