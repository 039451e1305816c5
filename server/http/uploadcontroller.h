#pragma once

#include "front/router.h"

#include <QThreadPool>

namespace ddl::server {

class UploadService;

// /v1/uploads: the resumable, content-addressed upload protocol, for users and workers. Chunks
// stream from the socket to the disk (UploadExchange).
class UploadController
{
public:
    static constexpr int BatchThreads = 4;

    explicit UploadController(UploadService &uploads)
        : m_uploads(uploads)
    {
        m_batchPool.setMaxThreadCount(BatchThreads);
    }
    // Batches still queued at shutdown are dropped (their clients send them again), not stored
    // and recorded while the server stops.
    ~UploadController() { m_batchPool.clear(); }
    void registerRoutes(Router &router);

private:
    UploadService &m_uploads;
    QThreadPool m_batchPool;
};

} // namespace ddl::server
