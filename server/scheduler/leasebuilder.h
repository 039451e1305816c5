#pragma once

#include "core/result.h"
#include "wire/tasklease.h"

#include <QSqlDatabase>

namespace ddl::server {

// Makes the leases a worker collects (docs/api.md, POST /v1/workers/lease): for every task placed
// on it and not yet delivered, the task and its job's code and data, with the environment OpenPAI
// and DDL give a task (PAI_*, its peers' host lists, TF_CONFIG), and the latest checkpoint of the
// task (its job, role and index) that an earlier attempt left.
class LeaseBuilder
{
public:
    // checkpointMaxBytes: the most a task's checkpoint may hold (0: no limit).
    explicit LeaseBuilder(const QSqlDatabase &db, qint64 checkpointMaxBytes = 0);

    // The leases of the running tasks placed on this worker that it has not collected yet.
    Result<QList<TaskLease>> undelivered(qint64 workerId) const;

private:
    QSqlDatabase m_db;
    qint64 m_checkpointMaxBytes = 0;
};

} // namespace ddl::server
