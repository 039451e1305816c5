#include "uploadcontroller.h"

#include "blobs/uploadservice.h"
#include "front/uploadexchange.h"
#include "requestreader.h"
#include "store/database.h"

#include <QtConcurrent>

namespace ddl::server {

static HttpReply uploadReply(const Result<UploadState> &upload, int status)
{
    if (!upload)
        return HttpReply::error(upload.error());
    return HttpReply::json(upload->toJson(), status);
}

// On a batch thread: the batch packed (BlobBatch::store), then recorded with this thread's own
// connection to the store, dropped after a failure so that the next batch reconnects.
static Status storeBatch(const BlobStorage &storage,
                         const QString &store,
                         const QString &owner,
                         const QByteArray &body,
                         const QList<BlobBatch::Entry> &entries,
                         const QHash<QString, QString> &recorded)
{
    Result<BlobBatch::Packed> packed = BlobBatch::store(storage, body, entries, recorded);
    if (!packed)
        return packed.error();
    Result<QSqlDatabase> db = Database::forThisThread(store);
    if (!db)
        return db.error();
    const Status written = UploadService::recordBatch(*db, owner, entries, *packed);
    if (!written) {
        *db = QSqlDatabase(); // no handle left on the connection as it is removed
        Database::dropThisThread();
    }
    return written;
}

void UploadController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/uploads", Access::UserOrWorker, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        // Left out, the upload starts without a digest; present, it must be the digest.
        const QJsonValue sha256 = body->value(QStringLiteral("sha256"));
        if (!sha256.isUndefined() && !sha256.isString())
            return HttpReply::error(Error::make(ErrorCode::BadRequest,
                                                QStringLiteral("sha256 must be a string of 64 hex "
                                                               "digits, or left out"),
                                                QStringLiteral("sha256")));
        return uploadReply(m_uploads.create(request.uploadOwner(),
                                            body->value(QStringLiteral("size")).toInteger(-1),
                                            sha256.toString()),
                           201);
    });
    // Many small blobs in one request (BlobBatch): digests checked, the new blobs packed with one
    // sync for all and recorded in one transaction, off the event loop on a pool of their own (a
    // slow disk sync must not hold the pool that hashes passwords) with each thread's own
    // connection to the store.
    router.route("POST", "/v1/blobs/batch", Access::UserOrWorker,
                 [this](const HttpRequest &request) {
                     Result<QList<BlobBatch::Entry>> entries = BlobBatch::parse(request.body());
                     if (!entries)
                         return HttpReply::error(entries.error());
                     QStringList digests;
                     for (const BlobBatch::Entry &entry : std::as_const(*entries))
                         digests.append(entry.sha256);
                     // Recorded is not held: whether the bytes are still there is looked at in
                     // the pool (a blob whose bytes were lost is stored again).
                     Result<QHash<QString, QString>> recorded =
                         m_uploads.locator().recorded(digests);
                     if (!recorded)
                         return HttpReply::error(recorded.error());
                     return HttpReply::later(QtConcurrent::run(
                         &m_batchPool,
                         [storage = m_uploads.storage(),
                          store = m_uploads.connectionName(),
                          owner = request.uploadOwner(),
                          body = request.body(),
                          entries = *entries,
                          recorded = *recorded]() -> HttpReply::Finish {
                             const Status stored =
                                 storeBatch(storage, store, owner, body, entries, recorded);
                             return [stored, count = int(entries.size())] {
                                 if (!stored)
                                     return HttpReply::error(stored.error());
                                 return HttpReply::json({{QStringLiteral("stored"), count}});
                             };
                         }));
                 });
    router.route("GET", "/v1/uploads/<arg>", Access::UserOrWorker,
                 [this](const HttpRequest &request) {
                     return uploadReply(m_uploads.state(request.uploadOwner(), request.arg(0)),
                                        200);
                 });
    // tus-style: where the upload stands, in headers only.
    router.route("HEAD", "/v1/uploads/<arg>", Access::UserOrWorker,
                 [this](const HttpRequest &request) {
                     Result<UploadState> state = m_uploads.state(request.uploadOwner(),
                                                                 request.arg(0));
                     if (!state)
                         return HttpReply::error(state.error());
                     HttpReply reply;
                     reply.setHeader("Upload-Offset", QByteArray::number(state->offset));
                     reply.setHeader("Upload-Length", QByteArray::number(state->size));
                     reply.setHeader("Cache-Control", "no-store");
                     return reply;
                 });
    router.route(
        "DELETE", "/v1/uploads/<arg>", Access::UserOrWorker, [this](const HttpRequest &request) {
            if (Status abandoned = m_uploads.abandon(request.uploadOwner(), request.arg(0));
                !abandoned)
                return HttpReply::error(abandoned.error());
            return HttpReply::json(
                {{QStringLiteral("id"), request.arg(0)}, {QStringLiteral("abandoned"), true}});
        });
    router.route("PUT", "/v1/uploads/<arg>", Access::UserOrWorker,
                 [this](const HttpRequest &request, QSslSocket *socket) {
                     return Exchange(std::make_unique<UploadExchange>(socket, m_uploads,
                                                                      request.uploadOwner(),
                                                                      request.arg(0),
                                                                      request.head()));
                 });
}

} // namespace ddl::server
