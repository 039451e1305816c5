#pragma once

#include "http/requestauth.h"
#include "logs/searchadmission.h"

#include <QHttpServer>
#include <QThreadPool>

namespace ddl::server {

// /v1/jobs: submit, list, read, cancel, and a job's logs (windows and search) and artifacts.
// Scoped to the caller.
class JobController
{
public:
    // Log searches scan on threads of their own, at most this many at once: a burst of them
    // queues there instead of holding up the shared pool (which hashes passwords for logins).
    static constexpr int SearchThreads = 2;

    explicit JobController(ServerContext &context)
        : m_context(context)
        , m_auth(context)
    {
        m_searchPool.setMaxThreadCount(SearchThreads);
    }
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
    // Before the pool: the pool's destructor waits for scans, which release their admission.
    SearchAdmission m_searchAdmission;
    QThreadPool m_searchPool;
};

} // namespace ddl::server
