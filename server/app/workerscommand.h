#pragma once

#include "core/result.h"

namespace ddl::server {

// `ddl-server workers list|quarantine ID [--reason TEXT]|release ID` (docs/trust.md): the
// admin's view of the workers' trust, and quarantine by hand. Each writes the store directly; a
// running server (or all servers on one PostgreSQL store) reads it at its next scheduling pass,
// within seconds. Each returns lines for people.
struct WorkersCommand
{
    QString dataDir;
    QString database; // empty: SQLite in dataDir

    // One line per worker: id, name, state, trust, trust state, quarantine reason.
    Result<QString> list() const;
    // A quarantined worker gets no new tasks; the ones it runs finish.
    Result<QString> quarantine(qint64 workerId, const QString &reason) const;
    // Released, the worker is unverified: with canaries on, its next task is a canary.
    Result<QString> release(qint64 workerId) const;
};

} // namespace ddl::server
