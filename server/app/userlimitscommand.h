#pragma once

#include "core/result.h"

#include <optional>

namespace ddl::server {

// What `ddl-server user limits` changes; an unset member stays as it is, -1 removes the limit.
struct UserLimitsChange
{
    QString email;
    std::optional<int> maxGpus;
    std::optional<int> maxRunningJobs;
};

// `ddl-server user limits --data-dir DIR --email E [--max-gpus N] [--max-running-jobs N]`: the
// admin's per-user limits, written to the store (the running server reads them at its next scheduling pass).
// Returns the limits now in force, as a line for people.
Result<QString>
setUserLimits(const QString &dataDir, const UserLimitsChange &change, const QString &database = {});

} // namespace ddl::server
