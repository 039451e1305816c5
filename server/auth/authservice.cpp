#include "authservice.h"

#include "passwordhasher.h"
#include "secrettoken.h"
#include "store/sql.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ddl::server {

AuthService::AuthService(const QSqlDatabase &db)
    : m_db(db)
{}

QJsonObject SessionTokens::toJson() const
{
    return {{QStringLiteral("access_token"), accessToken},
            {QStringLiteral("refresh_token"), refreshToken},
            {QStringLiteral("expires_in"), expiresInSeconds}};
}

Status AuthService::checkRegistration(const QString &email, const QString &password)
{
    static const QRegularExpression emailPattern(QStringLiteral("^[^@\\s]+@[^@\\s]+$"));
    if (!emailPattern.match(email).hasMatch() || email.size() > 254) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("\"%1\" is not an email address").arg(email.left(254)),
                           QStringLiteral("email"));
    }
    if (password.size() < 8 || password.size() > 1024) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("the password must have 8 to 1024 characters"),
                           QStringLiteral("password"));
    }
    Result<QSqlQuery> existing = runSql(m_db, QStringLiteral("SELECT 1 FROM users WHERE email = ?"),
                                        {email});
    if (!existing)
        return existing.error();
    if (existing->next()) {
        return Error::make(ErrorCode::Conflict,
                           QStringLiteral("%1 is already registered; log in instead").arg(email),
                           QStringLiteral("email"));
    }
    return Ok{};
}

Status AuthService::insertUser(const QString &email, const QString &passwordHash)
{
    if (passwordHash.isEmpty())
        return Error::make(ErrorCode::Internal, QStringLiteral("could not hash the password"));
    // Checked again: another registration of the same email may have finished meanwhile.
    if (Status free = checkRegistration(email, QStringLiteral("placeholder")); !free)
        return free;
    Result<QSqlQuery> insert = runSql(m_db,
                                      QStringLiteral("INSERT INTO users (email, password_hash, "
                                                     "created_at) VALUES (?, ?, ?)"),
                                      {email, passwordHash, nowMs()});
    if (!insert)
        return insert.error();
    return Ok{};
}

Status AuthService::registerUser(const QString &email, const QString &password)
{
    if (Status checked = checkRegistration(email, password); !checked)
        return checked;
    return insertUser(email, PasswordHasher::hash(password));
}

Result<LoginCandidate> AuthService::findLogin(const QString &email)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT id, password_hash FROM users WHERE "
                                                    "email = ?"),
                                     {email});
    if (!query)
        return query.error();
    // Verify against a fixed hash when the user is unknown, so timing does not tell who exists.
    static const QString dummy = PasswordHasher::hash(QStringLiteral("not-a-password"));
    if (!query->next())
        return LoginCandidate{0, dummy};
    return LoginCandidate{query->value(u"id"_s).toLongLong(),
                          query->value(u"password_hash"_s).toString()};
}

Result<SessionTokens> AuthService::finishLogin(const LoginCandidate &candidate, bool passwordValid)
{
    if (candidate.userId == 0 || !passwordValid) {
        return Error::make(ErrorCode::Unauthorized, QStringLiteral("wrong email or password"));
    }
    return createSession(candidate.userId);
}

Result<SessionTokens> AuthService::login(const QString &email, const QString &password)
{
    Result<LoginCandidate> candidate = findLogin(email);
    if (!candidate)
        return candidate.error();
    return finishLogin(*candidate, PasswordHasher::verify(password, candidate->storedHash));
}

Result<SessionTokens> AuthService::createSession(qint64 userId)
{
    SessionTokens tokens{SecretToken::generate(QStringLiteral("ddla_")),
                         SecretToken::generate(QStringLiteral("ddlr_")),
                         AccessLifetimeSeconds};
    const qint64 now = nowMs();
    Result<QSqlQuery> insert = runSql(
        m_db,
        QStringLiteral("INSERT INTO sessions (user_id, access_hash, access_expires, refresh_hash, "
                       "refresh_expires, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
        {userId, SecretToken::hashOf(tokens.accessToken), now + AccessLifetimeSeconds * 1000LL,
         SecretToken::hashOf(tokens.refreshToken), now + RefreshLifetimeSeconds * 1000LL, now});
    if (!insert)
        return insert.error();
    return tokens;
}

Result<SessionTokens> AuthService::refresh(const QString &refreshToken)
{
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT id, user_id, refresh_expires FROM "
                                                    "sessions WHERE refresh_hash = ?"),
                                     {SecretToken::hashOf(refreshToken)});
    if (!query)
        return query.error();
    if (!query->next() || query->value(u"refresh_expires"_s).toLongLong() < nowMs()) {
        return Error::make(ErrorCode::SessionExpired,
                           QStringLiteral("your session has expired; log in again"));
    }
    // A refresh token is spent by its use: the old session ends, a new one begins.
    const qint64 userId = query->value(u"user_id"_s).toLongLong();
    if (Result<QSqlQuery> removed = runSql(m_db, QStringLiteral("DELETE FROM sessions WHERE id = ?"),
                                           {query->value(u"id"_s)});
        !removed)
        return removed.error();
    Result<SessionTokens> tokens = createSession(userId);
    if (!tokens)
        return tokens;
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    return tokens;
}

Result<qint64> AuthService::userForAccessToken(const QString &accessToken)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT user_id, access_expires FROM sessions "
                                                    "WHERE access_hash = ?"),
                                     {SecretToken::hashOf(accessToken)});
    if (!query)
        return query.error();
    if (!query->next()) {
        return Error::make(ErrorCode::Unauthorized,
                           QStringLiteral("not logged in or the token is not valid; log in"));
    }
    if (query->value(u"access_expires"_s).toLongLong() < nowMs()) {
        return Error::make(ErrorCode::SessionExpired,
                           QStringLiteral("your session has expired; refresh it or log in again"));
    }
    return query->value(u"user_id"_s).toLongLong();
}

} // namespace ddl::server
