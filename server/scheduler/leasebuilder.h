#pragma once

#include "core/result.h"
#include "wire/tasklease.h"

#include <QSqlDatabase>

namespace ddl::server {

// Makes the leases a worker collects (docs/api.md, POST /v1/workers/lease): for every task placed
// on it and not yet delivered, the task and its job's code and data, with the environment OpenPAI
// and DDL give a task (PAI_*, its peers' host lists, TF_CONFIG).
class LeaseBuilder
{
public:
    explicit LeaseBuilder(const QSqlDatabase &db);

    // The leases of the running tasks placed on this worker that it has not collected yet.
    Result<QList<TaskLease>> undelivered(qint64 workerId) const;

private:
    QSqlDatabase m_db;
};

} // namespace ddl::server
