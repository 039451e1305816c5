#include "authcontroller.h"

#include "auth/authservice.h"
#include "auth/loginthrottle.h"
#include "auth/passwordhasher.h"
#include "requestreader.h"
#include "store/sql.h"

#include <QtConcurrent>

namespace ddl::server {

void AuthController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/auth/register", Access::Anyone,
                 [this](const HttpRequest &request) { return registerUser(request); });
    router.route("POST", "/v1/auth/login", Access::Anyone,
                 [this](const HttpRequest &request) { return login(request); });
    router.route("POST", "/v1/auth/refresh", Access::Anyone,
                 [this](const HttpRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     Result<SessionTokens> tokens = m_auth.refresh(
                         body->value(QStringLiteral("refresh_token")).toString());
                     if (!tokens)
                         return HttpReply::error(tokens.error());
                     return HttpReply::json(tokens->toJson());
                 });
}

HttpReply AuthController::registerUser(const HttpRequest &request)
{
    Result<QJsonObject> body = RequestReader::jsonBody(request);
    if (!body)
        return HttpReply::error(body.error());
    const QString email = body->value(QStringLiteral("email")).toString().trimmed();
    const QString password = body->value(QStringLiteral("password")).toString();
    if (Status checked = m_auth.checkRegistration(email, password); !checked)
        return HttpReply::error(checked.error());
    return HttpReply::later(QtConcurrent::run([this, email, password]() -> HttpReply::Finish {
        const QString hash = PasswordHasher::hash(password);
        return [this, email, hash] {
            if (Status inserted = m_auth.insertUser(email, hash); !inserted)
                return HttpReply::error(inserted.error());
            return HttpReply::json({{QStringLiteral("email"), email}}, 201);
        };
    }));
}

HttpReply AuthController::login(const HttpRequest &request)
{
    Result<QJsonObject> body = RequestReader::jsonBody(request);
    if (!body)
        return HttpReply::error(body.error());
    const QString email = body->value(QStringLiteral("email")).toString().trimmed();
    const QString password = body->value(QStringLiteral("password")).toString();
    const QString address = request.remoteAddress().toString();
    if (Status allowed = m_throttle.check(email, address, nowMs()); !allowed)
        return HttpReply::error(allowed.error());
    Result<LoginCandidate> candidate = m_auth.findLogin(email);
    if (!candidate)
        return HttpReply::error(candidate.error());
    return HttpReply::later(
        QtConcurrent::run([this, email, address, password, found = *candidate]() -> HttpReply::Finish {
            const bool valid = PasswordHasher::verify(password, found.storedHash);
            return [this, email, address, found, valid] {
                return finishLogin(email, address, found, valid);
            };
        }));
}

HttpReply AuthController::finishLogin(const QString &email, const QString &address,
                                      const LoginCandidate &candidate, bool valid)
{
    Result<SessionTokens> tokens = m_auth.finishLogin(candidate, valid);
    if (!tokens) {
        if (tokens.error().code == QLatin1String("unauthorized"))
            m_throttle.recordFailure(email, address, nowMs());
        return HttpReply::error(tokens.error());
    }
    m_throttle.recordSuccess(email);
    return HttpReply::json(tokens->toJson());
}

} // namespace ddl::server
