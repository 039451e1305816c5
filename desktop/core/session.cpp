#include "session.h"

#include "core/desktopsettings.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "core/serveraddress.h"
#include "core/tokenstore.h"

#include <QFutureWatcher>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

Q_LOGGING_CATEGORY(lcSession, "ddl.desktop.session")

namespace ddl::desktop {

namespace {
// What the certificate probe found, passed back from its thread.
struct ProbeResult
{
    QSslCertificate certificate;
    Error error;
};
} // namespace

Session::Session(DesktopSettings &settings, TokenStore &tokens, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_tokens(tokens)
{
    m_refreshTimer.setSingleShot(true);
    connect(&m_refreshTimer, &QTimer::timeout, this, &Session::refreshNow);
}

Session::~Session() = default;

QString Session::serverKey() const
{
    return ServerAddress::key(m_url);
}

QString Session::tokenKey() const
{
    return serverKey() + u' ' + m_email;
}

void Session::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void Session::makeClient(const ServerTrust &trust)
{
    m_client = std::make_unique<ApiClient>(m_url, trust);
    m_client->setTimeoutMs(20000);
}

void Session::connectToServer(const QString &urlText, const QString &caFile)
{
    Result<QUrl> url = ServerAddress::parse(urlText);
    if (!url) {
        emit failed(url.error().message);
        return;
    }
    m_refreshTimer.stop();
    delete m_pending;
    m_pending = new QObject(this);
    m_url = *url;
    m_client.reset();
    m_settings.setServerUrl(serverKey());
    if (!caFile.isEmpty()) {
        Result<ServerTrust> trust = ServerTrust::fromCaFile(caFile);
        if (!trust) {
            emit failed(tr("%1 holds no PEM certificate. Choose the server's certificate "
                           "(DATA_DIR/tls/server.crt) or its CA.").arg(caFile));
            return;
        }
        m_settings.setCaFile(serverKey(), caFile);
        makeClient(*trust);
        checkVersion();
        return;
    }
    const QByteArray pinned = m_settings.pinnedFingerprint(serverKey());
    if (!pinned.isEmpty()) {
        ServerTrust trust;
        trust.pinnedSha256Hex = pinned;
        makeClient(trust);
        checkVersion();
        return;
    }
    // First contact: fetch the certificate off the GUI thread and let the person decide.
    setState(State::Probing);
    auto *watcher = new QFutureWatcher<ProbeResult>(m_pending);
    connect(watcher, &QFutureWatcher<ProbeResult>::finished, m_pending, [this, watcher] {
        watcher->deleteLater();
        const ProbeResult probe = watcher->result();
        if (probe.certificate.isNull()) {
            setState(State::Disconnected);
            emit failed(ErrorText::describe(probe.error));
            return;
        }
        setState(State::NeedsTrust);
        emit certificateNeedsTrust(formatFingerprint(probe.certificate),
                                   probe.certificate.digest(QCryptographicHash::Sha256).toHex());
    });
    watcher->setFuture(QtConcurrent::run([url = m_url] {
        Result<QSslCertificate> certificate = fetchServerCertificate(url, 10000);
        ProbeResult probe;
        if (certificate)
            probe.certificate = *certificate;
        else
            probe.error = certificate.error();
        return probe;
    }));
}

void Session::trustCertificate(const QByteArray &sha256Hex)
{
    m_settings.setPinnedFingerprint(serverKey(), sha256Hex);
    m_settings.sync();
    ServerTrust trust;
    trust.pinnedSha256Hex = sha256Hex.toLower();
    makeClient(trust);
    checkVersion();
}

void Session::checkVersion()
{
    setState(State::Probing);
    whenFinished(m_client->get(u"/v1/version"_s), m_pending,
                 [this](const Result<ApiResponse> &result) {
                     if (!result) {
                         setState(State::Disconnected);
                         emit failed(ErrorText::describe(result.error()));
                         return;
                     }
                     setState(State::Connected);
                     emit connected();
                 });
}

void Session::registerUser(const QString &email, const QString &password)
{
    if (!m_client) {
        emit failed(tr("Connect to a server first."));
        return;
    }
    const QJsonObject body{{"email"_L1, email}, {"password"_L1, password}};
    whenFinished(m_client->postJson(u"/v1/auth/register"_s, body), m_pending,
                 [this, email, password](const Result<ApiResponse> &result) {
                     if (!result) {
                         emit failed(result.error().code == u"conflict"_s
                                         ? tr("An account for %1 exists already; log in "
                                              "instead.").arg(email)
                                         : ErrorText::describe(result.error()));
                         return;
                     }
                     emit registered(email);
                     login(email, password);
                 });
}

void Session::login(const QString &email, const QString &password)
{
    if (!m_client) {
        emit failed(tr("Connect to a server first."));
        return;
    }
    const QJsonObject body{{"email"_L1, email}, {"password"_L1, password}};
    whenFinished(m_client->postJson(u"/v1/auth/login"_s, body), m_pending,
                 [this, email](const Result<ApiResponse> &result) {
                     if (!result) {
                         emit failed(ErrorText::describeLogin(result.error()));
                         return;
                     }
                     m_email = email;
                     m_settings.setEmail(email);
                     m_settings.sync();
                     handleTokens(result->json());
                     setState(State::LoggedIn);
                     emit loggedIn(email);
                 });
}

void Session::resume(const QString &email)
{
    if (!m_client || email.isEmpty()) {
        emit resumeFailed();
        return;
    }
    m_email = email;
    auto *context = new QObject(m_pending);
    connect(&m_tokens, &TokenStore::tokenRead, context,
            [this, context](const QString &key, const QString &token) {
                if (key != tokenKey())
                    return;
                context->deleteLater();
                if (token.isEmpty()) {
                    emit resumeFailed();
                    return;
                }
                m_refreshToken = token;
                const QJsonObject body{{"refresh_token"_L1, token}};
                whenFinished(m_client->postJson(u"/v1/auth/refresh"_s, body), m_pending,
                             [this](const Result<ApiResponse> &result) {
                                 if (!result) {
                                     emit resumeFailed();
                                     return;
                                 }
                                 handleTokens(result->json());
                                 setState(State::LoggedIn);
                                 emit loggedIn(m_email);
                             });
            });
    m_tokens.read(tokenKey());
}

void Session::handleTokens(const QJsonObject &tokens)
{
    m_client->setBearerToken(tokens.value("access_token"_L1).toString());
    m_refreshToken = tokens.value("refresh_token"_L1).toString();
    m_tokens.write(tokenKey(), m_refreshToken);
    const int expiresIn = tokens.value("expires_in"_L1).toInt(600);
    m_refreshTimer.start(std::max(5, expiresIn - RefreshMarginSeconds) * 1000);
}

void Session::refreshNow()
{
    if (!m_client || m_refreshToken.isEmpty() || m_refreshing)
        return;
    m_refreshing = true;
    const QJsonObject body{{"refresh_token"_L1, m_refreshToken}};
    whenFinished(m_client->postJson(u"/v1/auth/refresh"_s, body), m_pending,
                 [this](const Result<ApiResponse> &result) {
                     m_refreshing = false;
                     if (!result) {
                         if (ErrorText::isAuthError(result.error())) {
                             m_refreshToken.clear();
                             setState(State::Connected);
                             emit sessionExpired(tr("Your session has expired. Log in again."));
                         } else {
                             // The server is away for a moment: try again soon.
                             qCInfo(lcSession) << "refresh failed:" << result.error().message;
                             m_refreshTimer.start(15000);
                         }
                         return;
                     }
                     handleTokens(result->json());
                     emit refreshed();
                 });
}

void Session::handleAuthError()
{
    if (m_state != State::LoggedIn)
        return;
    refreshNow();
}

void Session::logout()
{
    m_refreshTimer.stop();
    if (!m_email.isEmpty() && m_url.isValid())
        m_tokens.remove(tokenKey());
    m_refreshToken.clear();
    if (m_client)
        m_client->setBearerToken({});
    setState(m_client ? State::Connected : State::Disconnected);
    emit loggedOut();
}

} // namespace ddl::desktop
