#include "uploadcontroller.h"

#include "httpreply.h"
#include "requestreader.h"

namespace ddl::server {

static QHttpServerResponse uploadReply(const Result<UploadState> &upload,
                                       QHttpServerResponse::StatusCode status)
{
    if (!upload)
        return HttpReply::error(upload.error());
    return HttpReply::json(upload->toJson(), status);
}

void UploadController::registerRoutes(QHttpServer &server)
{
    using Method = QHttpServerRequest::Method;
    server.route(QStringLiteral("/v1/uploads"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QString> owner = m_auth.uploadOwner(request);
                     if (!owner)
                         return HttpReply::error(owner.error());
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return uploadReply(
                         m_context.uploads.create(*owner,
                                                  body->value(QStringLiteral("size")).toInteger(-1),
                                                  body->value(QStringLiteral("sha256")).toString()),
                         QHttpServerResponse::StatusCode::Created);
                 });
    server.route(QStringLiteral("/v1/uploads/<arg>"), Method::Get,
                 [this](const QString &id, const QHttpServerRequest &request) {
                     Result<QString> owner = m_auth.uploadOwner(request);
                     if (!owner)
                         return HttpReply::error(owner.error());
                     return uploadReply(m_context.uploads.state(*owner, id),
                                        QHttpServerResponse::StatusCode::Ok);
                 });
    server.route(QStringLiteral("/v1/uploads/<arg>"), Method::Put,
                 [this](const QString &id, const QHttpServerRequest &request) {
                     Result<QString> owner = m_auth.uploadOwner(request);
                     if (!owner)
                         return HttpReply::error(owner.error());
                     Result<qint64> offset = RequestReader::queryInteger(request,
                                                                         QStringLiteral("offset"),
                                                                         -1);
                     if (!offset || *offset < 0) {
                         return HttpReply::error(
                             Error::make(ErrorCode::BadRequest,
                                         QStringLiteral("a chunk needs ?offset=N"),
                                         QStringLiteral("offset")));
                     }
                     return uploadReply(m_context.uploads.writeChunk(*owner, id, *offset,
                                                                     request.body()),
                                        QHttpServerResponse::StatusCode::Ok);
                 });
}

} // namespace ddl::server
