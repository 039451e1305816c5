#pragma once

#include "api/accountsession.h"
#include "configstore.h"
#include "core/result.h"
#include "credentialstore.h"

#include <QCoreApplication>
#include <QString>
#include <QUrl>

#include <functional>

namespace ddl::cli {

class Console;

// Options every command accepts.
struct GlobalOptions
{
    QString server;           // --server (else DDL_SERVER, else the config's default)
    QString caCertificate;    // --ca-cert (else DDL_CA_CERT, else the config's for the server)
    QString trustFingerprint; // --trust-fingerprint=SHA256:AB:CD:...
};

// What a command runs against: the console, the stored config and credentials, and the server
// (shared/api's AccountSession, presented on the terminal: the trust prompt, and the pin and
// tokens kept in config.json and credentials.json). Everything is resolved on first use, so
// that commands which need no server (help) never touch the network.
class CliContext
{
    Q_DECLARE_TR_FUNCTIONS(CliContext)
public:
    CliContext(Console &console, const GlobalOptions &options, const QString &configDirectory);
    ~CliContext();

    Console &console() { return m_console; }
    ConfigStore &config() { return m_config; }
    CredentialStore &credentials() { return m_credentials; }
    const GlobalOptions &options() const { return m_options; }
    AccountSession &account() { return m_account; }

    // Reads config.json and credentials.json.
    Status load();

    // The account the commands must run as (the username of $HOME/.paddle/config, named by
    // origin in the error when the session is another account's).
    void setExpectedUser(const QString &email, const QString &origin)
    {
        m_expectedUser = email;
        m_expectedUserOrigin = origin;
    }

    // The server URL and its key in the stores; an error saying how to name one when unknown.
    Result<QUrl> serverUrl();
    Result<QString> serverKey();

    // A client for the server, trusted by CA file or pinned fingerprint (asking the user to pin
    // on first use). It carries no token.
    Result<ApiClient *> client();

    // One request that needs no login (register, login, version).
    Result<ApiResponse> send(const std::function<ApiRequest *(ApiClient &)> &makeRequest);

    // One request as the signed-in user. An expired access token is refreshed first, and a 401
    // answer is retried once after a refresh.
    Result<ApiResponse> sendAuthorized(const std::function<ApiRequest *(ApiClient &)> &makeRequest);

    // Runs work (an upload or a download) with the client signed in; when it fails on an expired
    // session the session is refreshed and work runs again: transfers resume where they stopped.
    Status runAuthorized(const std::function<Status(ApiClient &)> &work);

    // "SHA256:AB:CD:..", "ab:cd..", "abcd..." → 64 lowercase hex characters, or an error.
    static Result<QByteArray> parseFingerprint(const QString &text);

private:
    Result<ServerTrust> knownTrust(const QString &key);
    void handleCertificate(const QString &fingerprint, const QByteArray &sha256Hex);
    void handleTokens(const SessionTokens &tokens);
    // Runs start (a refresh, or a resume that may refresh) and waits for the refresh to end.
    Status awaitSignIn(const std::function<void()> &start);
    Status ensureSession();
    Status refreshSession();

    Console &m_console;
    GlobalOptions m_options;
    ConfigStore m_config;
    CredentialStore m_credentials;
    AccountSession m_account;
    QString m_expectedUser;
    QString m_expectedUserOrigin;
};

} // namespace ddl::cli
