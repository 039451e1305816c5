#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

// What a successful login or refresh hands to the client.
struct SessionTokens
{
    QString accessToken;
    QString refreshToken;
    int expiresInSeconds = 0;

    QJsonObject toJson() const;
};

// What a login needs checked off the event loop: the stored hash to verify the password against
// (a fixed one for an unknown email, so timing does not tell who exists).
struct LoginCandidate
{
    qint64 userId = 0; // 0: no such user
    QString storedHash;
};

// Users and their sessions: register, log in, refresh, and resolve an access token to a user.
class AuthService
{
public:
    static constexpr int AccessLifetimeSeconds = 600; // the seed's promise: 10-minute sessions
    static constexpr qint64 RefreshLifetimeSeconds = 30LL * 24 * 3600;

    explicit AuthService(const QSqlDatabase &db);

    Status registerUser(const QString &email, const QString &password);
    Result<SessionTokens> login(const QString &email, const QString &password);

    // The same in steps, so that the Argon2id work (PasswordHasher, ~0.1-0.4 s) can run on a
    // pool thread while the event loop serves everyone else: check, hash or verify, then finish.
    Status checkRegistration(const QString &email, const QString &password);
    Status insertUser(const QString &email, const QString &passwordHash);
    Result<LoginCandidate> findLogin(const QString &email);
    Result<SessionTokens> finishLogin(const LoginCandidate &candidate, bool passwordValid);

    Result<SessionTokens> refresh(const QString &refreshToken);
    // The user id behind an access token, or unauthorized / session_expired.
    Result<qint64> userForAccessToken(const QString &accessToken);

private:
    Result<SessionTokens> createSession(qint64 userId);

    QSqlDatabase m_db;
};

} // namespace ddl::server
