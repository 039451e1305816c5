#pragma once

#include "api/apiclient.h"

#include <QObject>
#include <QTimer>
#include <QUrl>
#include <memory>

namespace ddl::desktop {

class DesktopSettings;
class TokenStore;

// The connection to one server and the signed-in user: how the server is trusted (a CA file
// or a fingerprint pinned on first use), register, log in, silent refresh before the access
// token ends, and the refresh token kept in the TokenStore for the next start.
class Session : public QObject
{
    Q_OBJECT
public:
    enum class State { Disconnected, Probing, NeedsTrust, Connected, LoggedIn };
    Q_ENUM(State)

    Session(DesktopSettings &settings, TokenStore &tokens, QObject *parent = nullptr);
    ~Session() override;

    State state() const { return m_state; }
    QUrl serverUrl() const { return m_url; }
    QString serverKey() const;
    QString email() const { return m_email; }
    // The client of the current server; null before connectToServer() succeeded.
    ApiClient *client() const { return m_client.get(); }

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
    void refreshNow();
    void logout();
    // Views call this when a request answered 401: one refresh, or sessionExpired.
    void handleAuthError();

    // Seconds before the access token ends at which it is refreshed.
    static constexpr int RefreshMarginSeconds = 60;

signals:
    void stateChanged(ddl::desktop::Session::State state);
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
    void setState(State state);
    void makeClient(const ServerTrust &trust);
    void checkVersion();
    void handleTokens(const QJsonObject &tokens);
    QString tokenKey() const;

    DesktopSettings &m_settings;
    TokenStore &m_tokens;
    State m_state = State::Disconnected;
    QUrl m_url;
    QString m_email;
    QString m_refreshToken;
    std::unique_ptr<ApiClient> m_client;
    QTimer m_refreshTimer;
    bool m_refreshing = false;
    QObject *m_pending = nullptr; // parent of the callbacks of the current connection
};

} // namespace ddl::desktop
