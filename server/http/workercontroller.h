#pragma once

#include "front/router.h"

namespace ddl::server {

class LedgerStore;
class LogStorage;
class Scheduler;
class UtilisationService;
class WorkerService;

// /v1/workers: enrollment, heartbeats, leases, and what a worker sends back about its tasks.
class WorkerController
{
public:
    WorkerController(WorkerService &workers,
                     Scheduler &scheduler,
                     LogStorage &logs,
                     UtilisationService &utilisation,
                     LedgerStore &ledger)
        : m_workers(workers)
        , m_scheduler(scheduler)
        , m_logs(logs)
        , m_utilisation(utilisation)
        , m_ledger(ledger)
    {}
    void registerRoutes(Router &router);

private:
    HttpReply appendLog(const HttpRequest &request);
    // Runs a handler for the task the path names, once its id is known to be a number.
    template<typename Handler>
    HttpReply forTask(const HttpRequest &request, Handler &&handler);

    WorkerService &m_workers;
    Scheduler &m_scheduler;
    LogStorage &m_logs;
    UtilisationService &m_utilisation;
    LedgerStore &m_ledger; // log bytes count as uploaded in the worker's ledger
};

} // namespace ddl::server
