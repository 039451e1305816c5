#include "blobcontroller.h"

#include "blobs/uploadservice.h"
#include "core/sha256.h"
#include "front/fileexchange.h"
#include "workers/ledgerstore.h"
#include "workers/workerservice.h"

namespace ddl::server {

void BlobController::registerRoutes(Router &router)
{
    const auto download = [this](const HttpRequest &request, QSslSocket *socket) {
        return this->download(request, socket);
    };
    for (const QByteArray method : {"GET", "HEAD"}) {
        router.route(method, "/v1/blobs/<arg>", Access::User, download);
        router.route(method, "/v1/workers/blobs/<arg>", Access::Worker, download);
    }
}

Result<BlobLocation> BlobController::readableBlob(const Caller &caller,
                                                 const QString &sha256) const
{
    const bool mayRead = isSha256Hex(sha256) &&
                         (caller.worker ? m_workers.mayRead(*caller.worker, sha256)
                                        : m_uploads.ownsBlob(caller.uploadOwner, sha256));
    const std::optional<BlobLocation> location =
        mayRead ? m_blobs.locate(sha256) : std::nullopt;
    if (!location) {
        return Error::make(ErrorCode::NotFound,
                           QStringLiteral("no blob %1 %2")
                               .arg(sha256.left(64),
                                    caller.worker ? QStringLiteral("for this worker's tasks")
                                                  : QStringLiteral("of yours")),
                           QStringLiteral("sha256"));
    }
    return *location;
}

Exchange BlobController::download(const HttpRequest &request, QSslSocket *socket) const
{
    const QString sha256 = request.arg(0);
    Result<BlobLocation> location = readableBlob(request.caller(), sha256);
    if (!location)
        return location.error();
    auto exchange = std::make_unique<FileExchange>(socket, location->path, request.head(),
                                                   sha256.toLatin1());
    exchange->setWindow(location->offset, location->length);
    if (request.caller().worker) {
        exchange->setBodySent([ledger = &m_ledger, workerId = request.worker().id](qint64 bytes) {
            ledger->addTransfer(workerId, bytes, 0);
        });
    }
    return Exchange(std::move(exchange));
}

} // namespace ddl::server
