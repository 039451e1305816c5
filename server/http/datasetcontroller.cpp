#include "datasetcontroller.h"

#include "httpreply.h"
#include "requestreader.h"

#include <QJsonArray>

namespace ddl::server {

void DatasetController::registerRoutes(QHttpServer &server)
{
    using Method = QHttpServerRequest::Method;
    server.route(QStringLiteral("/v1/blobs/missing"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QString> owner = m_auth.uploadOwner(request);
                     if (!owner)
                         return HttpReply::error(owner.error());
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     QStringList digests;
                     for (const QJsonValue &value : body->value(QStringLiteral("sha256")).toArray())
                         digests << value.toString();
                     Result<QStringList> missing = m_context.datasets.missing(*owner, digests);
                     if (!missing)
                         return HttpReply::error(missing.error());
                     return HttpReply::json(
                         {{QStringLiteral("missing"), QJsonArray::fromStringList(*missing)}});
                 });
    server.route(QStringLiteral("/v1/datasets"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return HttpReply::from(
                         m_context.datasets.create(
                             *user, body->value(QStringLiteral("name")).toString(),
                             body->value(QStringLiteral("manifest_sha256")).toString()),
                         QHttpServerResponse::StatusCode::Created);
                 });
    server.route(QStringLiteral("/v1/datasets"), Method::Get,
                 [this](const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.datasets.list(*user));
                 });
    server.route(QStringLiteral("/v1/datasets/<arg>"), Method::Get,
                 [this](const QString &name, const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.datasets.get(*user, name));
                 });
    server.route(QStringLiteral("/v1/datasets/<arg>"), Method::Delete,
                 [this](const QString &name, const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.datasets.remove(*user, name));
                 });
}

} // namespace ddl::server
