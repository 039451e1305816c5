#include "authcontroller.h"

#include "httpreply.h"
#include "requestreader.h"
#include "store/sql.h"

namespace ddl::server {

void AuthController::registerRoutes(QHttpServer &server)
{
    using Method = QHttpServerRequest::Method;
    server.route(QStringLiteral("/v1/auth/register"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     const QString email = body->value(QStringLiteral("email")).toString().trimmed();
                     Status registered = m_context.auth.registerUser(
                         email, body->value(QStringLiteral("password")).toString());
                     if (!registered)
                         return HttpReply::error(registered.error());
                     return HttpReply::json({{QStringLiteral("email"), email}},
                                            QHttpServerResponse::StatusCode::Created);
                 });
    server.route(QStringLiteral("/v1/auth/login"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     const QString email = body->value(QStringLiteral("email")).toString().trimmed();
                     const QString address = request.remoteAddress().toString();
                     if (Status allowed = m_context.throttle.check(email, address, nowMs()); !allowed)
                         return HttpReply::error(allowed.error());
                     Result<SessionTokens> tokens = m_context.auth.login(
                         email, body->value(QStringLiteral("password")).toString());
                     if (!tokens) {
                         if (tokens.error().is(ErrorCode::Unauthorized))
                             m_context.throttle.recordFailure(email, address, nowMs());
                         return HttpReply::error(tokens.error());
                     }
                     m_context.throttle.recordSuccess(email);
                     return HttpReply::json(tokens->toJson());
                 });
    server.route(QStringLiteral("/v1/auth/refresh"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     Result<SessionTokens> tokens = m_context.auth.refresh(
                         body->value(QStringLiteral("refresh_token")).toString());
                     if (!tokens)
                         return HttpReply::error(tokens.error());
                     return HttpReply::json(tokens->toJson());
                 });
}

} // namespace ddl::server
