#pragma once

#include "core/result.h"

#include <QSqlDatabase>

namespace ddl::server {

// What a successful login or refresh hands to the client.
struct SessionTokens
{
    QString accessToken;
    QString refreshToken;
    int expiresInSeconds = 0;
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
    Result<SessionTokens> refresh(const QString &refreshToken);
    // The user id behind an access token, or unauthorized / session_expired.
    Result<qint64> userForAccessToken(const QString &accessToken);

private:
    Result<SessionTokens> createSession(qint64 userId);

    QSqlDatabase m_db;
};

} // namespace ddl::server
