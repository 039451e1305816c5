#include "session.h"

#include "api/serveraddress.h"
#include "core/desktopsettings.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "core/tokenstore.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

Session::Session(DesktopSettings &settings, TokenStore &tokens, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_tokens(tokens)
{
    connect(
        &m_account, &AccountSession::certificateNeedsTrust, this, &Session::certificateNeedsTrust);
    connect(&m_account, &AccountSession::connected, this, &Session::connected);
    connect(&m_account, &AccountSession::failed, this, [this](const Error &error) {
        emit failed(ErrorText::describe(error));
    });
    connect(&m_account, &AccountSession::tokensChanged, this, [this](const SessionTokens &tokens) {
        m_tokens.write(tokenKey(m_account.email()), tokens.refreshToken);
    });
    connect(&m_account, &AccountSession::loggedIn, this, [this](const QString &email) {
        m_resuming = false;
        m_settings.setEmail(email);
        m_settings.sync();
        emit loggedIn(email);
    });
    connect(&m_account, &AccountSession::refreshed, this, &Session::refreshed);
    connect(&m_account, &AccountSession::sessionExpired, this, [this] {
        if (std::exchange(m_resuming, false))
            emit resumeFailed();
        else
            emit sessionExpired(tr("Your session has expired. Log in again."));
    });
    connect(&m_account, &AccountSession::refreshFailed, this, [this] {
        if (std::exchange(m_resuming, false))
            emit resumeFailed();
    });
    connect(&m_account, &AccountSession::loggedOut, this, &Session::loggedOut);
}

Session::~Session() = default;

QString Session::tokenKey(const QString &email) const
{
    return serverKey() + u' ' + email;
}

void Session::connectToServer(const QString &urlText, const QString &caFile)
{
    Result<QUrl> url = ServerAddress::parse(urlText);
    if (!url) {
        emit failed(url.error().message);
        return;
    }
    const QString key = ServerAddress::key(*url);
    m_settings.setServerUrl(key);
    ServerTrust trust;
    if (!caFile.isEmpty()) {
        Result<ServerTrust> fromFile = ServerTrust::fromCaFile(caFile);
        if (!fromFile) {
            emit failed(tr("%1 holds no PEM certificate. Choose the server's certificate "
                           "(DATA_DIR/tls/server.crt) or its CA.").arg(caFile));
            return;
        }
        m_settings.setCaFile(key, caFile);
        trust = *fromFile;
    } else {
        trust.pinnedSha256Hex = m_settings.pinnedFingerprint(key);
    }
    m_account.connectToServer(*url, trust);
}

void Session::trustCertificate(const QByteArray &sha256Hex)
{
    m_settings.setPinnedFingerprint(serverKey(), sha256Hex);
    m_settings.sync();
    m_account.trustCertificate(sha256Hex);
}

void Session::registerUser(const QString &email, const QString &password)
{
    if (!client()) {
        emit failed(tr("Connect to a server first."));
        return;
    }
    whenFinished(m_account.registerUser(email, password),
                 this,
                 [this, email, password](const Result<ApiResponse> &result) {
                     if (!result) {
                         emit failed(result.error().is(ErrorCode::Conflict)
                                         ? tr("An account for %1 exists already; log in "
                                              "instead.")
                                               .arg(email)
                                         : ErrorText::describe(result.error()));
                         return;
                     }
                     emit registered(email);
                     login(email, password);
                 });
}

void Session::login(const QString &email, const QString &password)
{
    if (!client()) {
        emit failed(tr("Connect to a server first."));
        return;
    }
    whenFinished(m_account.login(email, password), this, [this](const Result<ApiResponse> &result) {
        if (!result)
            emit failed(ErrorText::describeLogin(result.error()));
    });
}

void Session::resume(const QString &email)
{
    if (!client() || email.isEmpty()) {
        emit resumeFailed();
        return;
    }
    auto *context = new QObject(this);
    connect(&m_tokens,
            &TokenStore::tokenRead,
            context,
            [this, context, email](const QString &key, const QString &token) {
                if (key != tokenKey(email))
                    return;
                context->deleteLater();
                if (token.isEmpty()) {
                    emit resumeFailed();
                    return;
                }
                m_resuming = true;
                m_account.resume(email, SessionTokens{{}, token, {}});
            });
    m_tokens.read(tokenKey(email));
}

void Session::handleAuthError()
{
    if (state() == State::LoggedIn)
        m_account.refresh();
}

void Session::logout()
{
    if (!email().isEmpty() && serverUrl().isValid())
        m_tokens.remove(tokenKey(email()));
    m_account.logout();
}

} // namespace ddl::desktop
