#include "credentialstore.h"

#include "jsonfile.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

namespace Key {
static constexpr auto Servers = "servers"_L1;
static constexpr auto Email = "email"_L1;
static constexpr auto AccessToken = "access_token"_L1;
static constexpr auto RefreshToken = "refresh_token"_L1;
static constexpr auto AccessExpiresAt = "access_expires_at"_L1;
} // namespace Key

bool Session::accessExpired(const QDateTime &now, int marginSeconds) const
{
    return !accessExpiresAt.isValid() || now.addSecs(marginSeconds) >= accessExpiresAt;
}

CredentialStore::CredentialStore(const QString &directory)
    : m_directory(directory)
{
}

QString CredentialStore::filePath() const
{
    return m_directory + u"/credentials.json"_s;
}

Status CredentialStore::load()
{
    Result<QJsonObject> root = JsonFile::read(filePath());
    if (!root)
        return root.error();
    m_root = *root;
    return Ok{};
}

Status CredentialStore::save() const
{
    return JsonFile::write(filePath(), m_root, JsonFile::Access::OwnerOnly);
}

std::optional<Session> CredentialStore::session(const QString &serverKey) const
{
    const QJsonObject entry = m_root.value(Key::Servers).toObject().value(serverKey).toObject();
    if (entry.value(Key::AccessToken).toString().isEmpty() &&
        entry.value(Key::RefreshToken).toString().isEmpty()) {
        return std::nullopt;
    }
    Session session;
    session.email = entry.value(Key::Email).toString();
    session.accessToken = entry.value(Key::AccessToken).toString();
    session.refreshToken = entry.value(Key::RefreshToken).toString();
    session.accessExpiresAt =
        QDateTime::fromString(entry.value(Key::AccessExpiresAt).toString(), Qt::ISODate);
    return session;
}

void CredentialStore::setSession(const QString &serverKey, const Session &session)
{
    QJsonObject servers = m_root.value(Key::Servers).toObject();
    servers.insert(
        serverKey,
        QJsonObject{{Key::Email, session.email},
                    {Key::AccessToken, session.accessToken},
                    {Key::RefreshToken, session.refreshToken},
                    {Key::AccessExpiresAt, session.accessExpiresAt.toUTC().toString(Qt::ISODate)}});
    m_root.insert(Key::Servers, servers);
}

void CredentialStore::removeSession(const QString &serverKey)
{
    QJsonObject servers = m_root.value(Key::Servers).toObject();
    servers.remove(serverKey);
    m_root.insert(Key::Servers, servers);
}

} // namespace ddl::cli
