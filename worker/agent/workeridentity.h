#pragma once

#include "core/result.h"

#include <QString>
#include <optional>

namespace ddl::worker {

// The credentials the server gave this worker at enrollment. They are kept in
// WORK_DIR/worker.json (mode 0600) and reused on restart, for the server they came from.
struct WorkerIdentity
{
    QString server; // base URL of the server that issued them
    QString workerId;
    QString workerToken; // secret: never logged

    // std::nullopt when the file does not exist; an error when it exists but cannot be used.
    static Result<std::optional<WorkerIdentity>> load(const QString &path);
    // Writes the file atomically, readable by the owner only.
    Status save(const QString &path) const;
};

} // namespace ddl::worker
