#pragma once

#include "http/requestauth.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/workers: enrollment, heartbeats, leases, and what a worker sends back about its tasks.
class WorkerController
{
public:
    explicit WorkerController(ServerContext &context)
        : m_context(context)
        , m_auth(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    QHttpServerResponse lease(const QHttpServerRequest &request);
    QHttpServerResponse blob(const QString &sha256, const QHttpServerRequest &request);
    QHttpServerResponse appendLog(const QString &taskId, const QHttpServerRequest &request);
    // Runs a handler for a task of the calling worker, after checking the id and the lease.
    template<typename Handler>
    QHttpServerResponse forTask(const QString &taskId, const QHttpServerRequest &request,
                                Handler &&handler);

    ServerContext &m_context;
    RequestAuth m_auth;
};

} // namespace ddl::server
