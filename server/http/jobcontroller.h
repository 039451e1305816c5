#pragma once

#include "http/requestauth.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/jobs: submit, list, read, cancel, and a job's logs (windows and search) and artifacts.
// Scoped to the caller.
class JobController
{
public:
    explicit JobController(ServerContext &context)
        : m_context(context)
        , m_auth(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    QHttpServerResponse logs(const QString &uuid, const QHttpServerRequest &request);
    // GET .../logs/search: checked here, scanned on a pool thread, answered when done (unless
    // the client went away meanwhile).
    void searchLogs(const QString &uuid, const QHttpServerRequest &request,
                    QHttpServerResponder &&responder);
    QHttpServerResponse artifacts(const QString &uuid, const QHttpServerRequest &request);
    QHttpServerResponse artifactFile(const QString &uuid, const QHttpServerRequest &request);

    ServerContext &m_context;
    RequestAuth m_auth;
};

} // namespace ddl::server
