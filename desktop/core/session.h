#pragma once

#include "api/accountsession.h"

#include <QObject>

namespace ddl::desktop {

class DesktopSettings;
class TokenStore;

// The desktop's face of shared/api's AccountSession: the server, its trust (a CA file or a
// fingerprint pinned on first use) and the email kept in DesktopSettings, the refresh token in
// the TokenStore for the next start, and every error put in words a person acts on.
class Session : public QObject
{
    Q_OBJECT
public:
    using State = AccountSession::State;

    Session(DesktopSettings &settings, TokenStore &tokens, QObject *parent = nullptr);
    ~Session() override;

    State state() const { return m_account.state(); }
    QUrl serverUrl() const { return m_account.serverUrl(); }
    QString serverKey() const { return m_account.serverKey(); }
    QString email() const { return m_account.email(); }
    // The client of the current server; null before connectToServer() succeeded.
    ApiClient *client() const { return m_account.client(); }

    // Step 1: trust. With caFile, or a fingerprint pinned before, checks the server at once;
    // otherwise fetches its certificate and asks (certificateNeedsTrust).
    void connectToServer(const QString &urlText, const QString &caFile = {});
    // Pins the fingerprint shown by certificateNeedsTrust and goes on connecting.
    void trustCertificate(const QByteArray &sha256Hex);
    // Step 2: an account.
    void registerUser(const QString &email, const QString &password);
    void login(const QString &email, const QString &password);
    // Uses a refresh token kept from an earlier run; loggedIn or resumeFailed.
    void resume(const QString &email);
    void refreshNow() { m_account.refresh(); }
    void logout();
    // Views call this when a request answered 401: one refresh, or sessionExpired.
    void handleAuthError();

signals:
    void certificateNeedsTrust(const QString &fingerprint, const QByteArray &sha256Hex);
    void connected();
    void registered(const QString &email);
    void loggedIn(const QString &email);
    void resumeFailed();
    void refreshed();
    void sessionExpired(const QString &message);
    void failed(const QString &message);
    void loggedOut();

private:
    QString tokenKey(const QString &email) const;

    DesktopSettings &m_settings;
    TokenStore &m_tokens;
    AccountSession m_account;
    bool m_resuming = false; // a failed refresh is a failed resume, not an expired session
};

} // namespace ddl::desktop
