#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QSqlDatabase>

namespace ddl::server {

// What a worker has free when it asks for work.
struct FreeResources
{
    int slotCount = 0;
    int gpus = 0;
    int cpus = 0;
    qint64 memoryMb = 0;
};

// Hands waiting tasks to a worker that asks, oldest job first, as far as the worker's free
// slots, GPUs, CPUs and memory allow. Each lease carries what the task needs to run: code and
// data digests and the PAI_* environment of OpenPAI.
class Scheduler
{
public:
    explicit Scheduler(const QSqlDatabase &db);

    Result<QJsonArray> lease(qint64 workerId, const FreeResources &free);

private:
    QSqlDatabase m_db;
};

} // namespace ddl::server
