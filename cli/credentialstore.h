#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace ddl::cli {

// The tokens of one login on one server.
struct Session
{
    QString email;
    QString accessToken;
    QString refreshToken;
    QDateTime accessExpiresAt; // UTC

    // True when the access token is past (or within margin seconds of) its end.
    bool accessExpired(const QDateTime &now, int marginSeconds = 30) const;
};

// credentials.json next to config.json: the sessions of the user, one per server key, in a
// file only its owner can read (0600, folder 0700).
class CredentialStore
{
    Q_DECLARE_TR_FUNCTIONS(CredentialStore)
public:
    explicit CredentialStore(const QString &directory);

    QString filePath() const;
    Status load();
    Status save() const;

    std::optional<Session> session(const QString &serverKey) const;
    void setSession(const QString &serverKey, const Session &session);
    void removeSession(const QString &serverKey);

private:
    QString m_directory;
    QJsonObject m_root;
};

} // namespace ddl::cli
