#pragma once

#include "blobs/bloblocator.h"
#include "front/router.h"

namespace ddl::server {

class LedgerStore;
class UploadService;
class WorkerService;

// Reading blobs: GET (and HEAD) /v1/blobs/<sha256> for users, /v1/workers/blobs/<sha256> for
// workers, streamed with Range (FileExchange). One access check serves both.
class BlobController
{
public:
    BlobController(const BlobLocator &blobs, UploadService &uploads, WorkerService &workers,
                   LedgerStore &ledger)
        : m_blobs(blobs)
        , m_uploads(uploads)
        , m_workers(workers)
        , m_ledger(ledger)
    {
    }
    void registerRoutes(Router &router);

private:
    // Where the bytes are of a blob the caller may read: a user's own (uploaded, or held through its
    // datasets), a worker's for the tasks it holds; not_found for anything else, so that no one
    // learns which digests the server has.
    Result<BlobLocation> readableBlob(const Caller &caller, const QString &sha256) const;
    Exchange download(const HttpRequest &request, QSslSocket *socket) const;

    BlobLocator m_blobs;
    UploadService &m_uploads;
    WorkerService &m_workers;
    LedgerStore &m_ledger; // a worker's downloads count in its contribution ledger
};

} // namespace ddl::server
