#pragma once

#include "apiclient.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ddl {

// The tokens of one login, as a client keeps them between runs.
struct SessionTokens
{
    QString accessToken;
    QString refreshToken;
    QDateTime accessExpiresAt; // UTC; invalid: unknown, taken as expired

    // The tokens of a login or refresh answer; an error when it holds none.
    static Result<SessionTokens> fromJson(const QJsonObject &answer);
    bool accessExpired(const QDateTime &now, int marginSeconds) const;
};

// One account on one server, for ddlcli and ddl-desktop alike. Step 1, trust: a CA file or a
// fingerprint the client kept; else a certificate a public CA signed; else the certificate is
// fetched and certificateNeedsTrust asks the person (the CLI on its terminal, the desktop in a
// dialog), who answers with trustCertificate() (and keeps the pin) or refuseCertificate().
// Step 2, the account: register, log in, or resume kept tokens; the access token is refreshed
// before it ends and whenever the server refuses it. Keeping the pin and the tokens is the
// client's part (tokensChanged); so are the words shown for an Error.
class AccountSession : public QObject
{
    Q_OBJECT
public:
    enum class State { Disconnected, Probing, NeedsTrust, Connected, LoggedIn };
    Q_ENUM(State)

    // Seconds before the access token ends at which it is refreshed.
    static constexpr int RefreshMarginSeconds = 60;
    // After a refresh that failed for a reason other than a refused token (the server is away).
    static constexpr int RefreshRetryMs = 15000;

    explicit AccountSession(QObject *parent = nullptr);
    ~AccountSession() override;

    State state() const { return m_state; }
    bool isRefreshing() const { return m_refreshing; }
    QUrl serverUrl() const { return m_url; }
    QString serverKey() const;
    QString email() const { return m_email; }
    const SessionTokens &tokens() const { return m_tokens; }
    // The client of the current server; null before connectToServer().
    ApiClient *client() const { return m_client; }

    // Step 1. url as ServerAddress::parse() makes it. Ends in connected() or failed().
    void connectToServer(const QUrl &url, const ServerTrust &known = {});
    void trustCertificate(const QByteArray &sha256Hex);
    void refuseCertificate(const Error &why);

    // Step 2. Both requests are the caller's; a successful login leaves the session LoggedIn
    // (or, for an answer without tokens, emits failed()).
    ApiRequest *registerUser(const QString &email, const QString &password);
    ApiRequest *login(const QString &email, const QString &password);
    // Tokens kept from an earlier run: used as they are while the access token is good, else
    // refreshed first. Ends in loggedIn(), sessionExpired() or refreshFailed().
    void resume(const QString &email, const SessionTokens &tokens);
    void refresh();
    void logout();

signals:
    void stateChanged(ddl::AccountSession::State state);
    void certificateNeedsTrust(const QString &fingerprint, const QByteArray &sha256Hex);
    void connected();
    void failed(const ddl::Error &error);
    void loggedIn(const QString &email);
    void tokensChanged(const ddl::SessionTokens &tokens);
    void refreshed();
    // The server refused the refresh token: a new login is needed.
    void sessionExpired();
    void refreshFailed(const ddl::Error &error);
    void loggedOut();

private:
    void setState(State state);
    void makeClient(const ServerTrust &trust);
    void checkVersion(bool askOnUntrusted);
    void fetchCertificate();
    void useTokens();
    void setTokens(const SessionTokens &tokens);

    State m_state = State::Disconnected;
    QUrl m_url;
    QString m_email;
    SessionTokens m_tokens;
    QPointer<ApiClient> m_client;
    QTimer m_refreshTimer;
    bool m_refreshing = false;
    QObject *m_pending = nullptr; // context of the callbacks of the current connection
};

} // namespace ddl
