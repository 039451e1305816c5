#pragma once

#include "blobs/bloblocator.h"
#include "front/router.h"
#include "logs/searchadmission.h"

#include <QThreadPool>

namespace ddl::server {

class JobOutputs;
class JobService;
class LogStorage;
class UtilisationService;

// /v1/jobs: submit, list, read, cancel, and a job's logs (windows, follow, search) and
// artifacts. Scoped to the caller.
class JobController
{
public:
    // Log searches scan on threads of their own, at most this many at once: a burst of them
    // queues there instead of holding up the shared pool (which hashes passwords for logins).
    static constexpr int SearchThreads = 2;

    JobController(JobService &jobs,
                  JobOutputs &outputs,
                  LogStorage &logs,
                  const BlobLocator &blobs,
                  UtilisationService &utilisation)
        : m_jobs(jobs)
        , m_outputs(outputs)
        , m_logs(logs)
        , m_blobs(blobs)
        , m_utilisation(utilisation)
    {
        m_searchPool.setMaxThreadCount(SearchThreads);
    }
    void registerRoutes(Router &router);

private:
    Exchange logs(const HttpRequest &request, QSslSocket *socket);
    // GET .../logs/search: checked here, scanned on a pool thread, answered when done (unless
    // the client went away meanwhile).
    HttpReply searchLogs(const HttpRequest &request);
    HttpReply artifacts(const HttpRequest &request);
    Exchange artifactFile(const HttpRequest &request, QSslSocket *socket);
    HttpReply utilisation(const HttpRequest &request);

    JobService &m_jobs;
    JobOutputs &m_outputs;
    LogStorage &m_logs;
    BlobLocator m_blobs;
    UtilisationService &m_utilisation;
    // Before the pool: the pool's destructor waits for scans, which release their admission.
    SearchAdmission m_searchAdmission;
    QThreadPool m_searchPool;
};

} // namespace ddl::server
