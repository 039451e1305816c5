#include "uploadcontroller.h"

#include "blobs/uploadservice.h"
#include "front/uploadexchange.h"
#include "requestreader.h"

namespace ddl::server {

static HttpReply uploadReply(const Result<UploadState> &upload, int status)
{
    if (!upload)
        return HttpReply::error(upload.error());
    return HttpReply::json(upload->toJson(), status);
}

void UploadController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/uploads", Access::UserOrWorker, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return uploadReply(m_uploads.create(request.uploadOwner(),
                                            body->value(QStringLiteral("size")).toInteger(-1),
                                            body->value(QStringLiteral("sha256")).toString()),
                           201);
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
    router.route("PUT", "/v1/uploads/<arg>", Access::UserOrWorker,
                 [this](const HttpRequest &request, QSslSocket *socket) {
                     return Exchange(std::make_unique<UploadExchange>(socket, m_uploads,
                                                                      request.uploadOwner(),
                                                                      request.arg(0),
                                                                      request.head()));
                 });
}

} // namespace ddl::server
