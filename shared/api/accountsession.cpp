#include "accountsession.h"

#include "serveraddress.h"

#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

Q_LOGGING_CATEGORY(lcAccount, "ddl.api.account")

namespace ddl {

Result<SessionTokens> SessionTokens::fromJson(const QJsonObject &answer)
{
    SessionTokens tokens;
    tokens.accessToken = answer.value("access_token"_L1).toString();
    tokens.refreshToken = answer.value("refresh_token"_L1).toString();
    if (tokens.accessToken.isEmpty() || tokens.refreshToken.isEmpty()) {
        return Error::make(ErrorCode::BadAnswer,
                           u"the server's answer holds no access_token or refresh_token; is it "
                           "a DDL server?"_s);
    }
    tokens.accessExpiresAt =
        QDateTime::currentDateTimeUtc().addSecs(answer.value("expires_in"_L1).toInteger(600));
    return tokens;
}

bool SessionTokens::accessExpired(const QDateTime &now, int marginSeconds) const
{
    return accessToken.isEmpty() || !accessExpiresAt.isValid() ||
           now.addSecs(marginSeconds) >= accessExpiresAt;
}

AccountSession::AccountSession(QObject *parent)
    : QObject(parent)
{
    m_refreshTimer.setSingleShot(true);
    connect(&m_refreshTimer, &QTimer::timeout, this, &AccountSession::refresh);
}

AccountSession::~AccountSession() = default;

QString AccountSession::serverKey() const
{
    return ServerAddress::key(m_url);
}

void AccountSession::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void AccountSession::makeClient(const ServerTrust &trust)
{
    // Deleted later: this may run in a callback of one of its requests.
    if (m_client)
        m_client->deleteLater();
    m_client = new ApiClient(m_url, trust, this);
    connect(m_client, &ApiClient::tokenRefused, this, [this] {
        if (m_state == State::LoggedIn)
            refresh();
    });
}

void AccountSession::connectToServer(const QUrl &url, const ServerTrust &known)
{
    m_refreshTimer.stop();
    m_refreshing = false;
    delete m_pending;
    m_pending = new QObject(this);
    m_url = url;
    m_email.clear();
    m_tokens = {};
    makeClient(known);
    const bool trustKnown = !known.caCertificates.isEmpty() || !known.pinnedSha256Hex.isEmpty();
    checkVersion(!trustKnown);
}

void AccountSession::checkVersion(bool askOnUntrusted)
{
    setState(State::Probing);
    ApiRequest *request = m_client->version();
    connect(request, &ApiRequest::finished, m_pending, [this, request, askOnUntrusted] {
        request->deleteLater();
        if (request->result()) {
            setState(State::Connected);
            emit connected();
        } else if (askOnUntrusted &&
                   request->result().error().is(ErrorCode::UntrustedCertificate)) {
            fetchCertificate();
        } else {
            setState(State::Disconnected);
            emit failed(request->result().error());
        }
    });
}

void AccountSession::fetchCertificate()
{
    // The handshake blocks: off this thread, so that a GUI stays responsive.
    auto *watcher = new QFutureWatcher<Result<QSslCertificate>>(m_pending);
    connect(
        watcher, &QFutureWatcher<Result<QSslCertificate>>::finished, m_pending, [this, watcher] {
            watcher->deleteLater();
            const Result<QSslCertificate> certificate = watcher->result();
            if (!certificate) {
                setState(State::Disconnected);
                emit failed(certificate.error());
                return;
            }
            setState(State::NeedsTrust);
            emit certificateNeedsTrust(formatFingerprint(*certificate),
                                       certificate->digest(QCryptographicHash::Sha256).toHex());
        });
    watcher->setFuture(QtConcurrent::run([url = m_url] { return fetchServerCertificate(url); }));
}

void AccountSession::trustCertificate(const QByteArray &sha256Hex)
{
    ServerTrust trust;
    trust.pinnedSha256Hex = sha256Hex.toLower();
    makeClient(trust);
    checkVersion(false);
}

void AccountSession::refuseCertificate(const Error &why)
{
    setState(State::Disconnected);
    emit failed(why);
}

ApiRequest *AccountSession::registerUser(const QString &email, const QString &password)
{
    return m_client->registerUser(email, password);
}

ApiRequest *AccountSession::login(const QString &email, const QString &password)
{
    ApiRequest *request = m_client->login(email, password);
    // Connected before the caller: the session is LoggedIn when the caller hears of it.
    connect(request, &ApiRequest::finished, m_pending, [this, request, email] {
        if (!request->result())
            return;
        Result<SessionTokens> tokens = SessionTokens::fromJson(request->result()->json());
        if (!tokens) {
            emit failed(tokens.error());
            return;
        }
        m_email = email;
        setTokens(*tokens);
        setState(State::LoggedIn);
        emit loggedIn(email);
    });
    return request;
}

void AccountSession::resume(const QString &email, const SessionTokens &tokens)
{
    m_email = email;
    m_tokens = tokens;
    if (tokens.accessExpired(QDateTime::currentDateTimeUtc(), RefreshMarginSeconds)) {
        refresh();
        return;
    }
    useTokens();
    setState(State::LoggedIn);
    emit loggedIn(email);
}

void AccountSession::useTokens()
{
    m_client->setBearerToken(m_tokens.accessToken);
    const qint64 left = QDateTime::currentDateTimeUtc().secsTo(m_tokens.accessExpiresAt);
    m_refreshTimer.start(int(std::max<qint64>(5, left - RefreshMarginSeconds)) * 1000);
}

void AccountSession::setTokens(const SessionTokens &tokens)
{
    m_tokens = tokens;
    useTokens();
    emit tokensChanged(tokens);
}

void AccountSession::refresh()
{
    if (!m_client || m_refreshing)
        return;
    if (m_tokens.refreshToken.isEmpty()) {
        emit sessionExpired();
        return;
    }
    m_refreshing = true;
    ApiRequest *request = m_client->refreshTokens(m_tokens.refreshToken);
    connect(request, &ApiRequest::finished, m_pending, [this, request] {
        request->deleteLater();
        m_refreshing = false;
        Result<SessionTokens> tokens = request->result()
                                           ? SessionTokens::fromJson(request->result()->json())
                                           : Result<SessionTokens>(request->result().error());
        if (tokens) {
            setTokens(*tokens);
            emit refreshed();
            if (m_state != State::LoggedIn) {
                setState(State::LoggedIn);
                emit loggedIn(m_email);
            }
            return;
        }
        // A refused refresh token means logging in again; anything else is tried again soon.
        const Error &error = tokens.error();
        if (isUnauthorized(error) || error.is(ErrorCode::BadRequest) ||
            error.is(ErrorCode::NotFound) || error.is(ErrorCode::Forbidden)) {
            m_refreshTimer.stop();
            m_tokens = {};
            m_client->setBearerToken({});
            setState(State::Connected);
            emit sessionExpired();
            return;
        }
        qCInfo(lcAccount) << "refresh failed:" << tokens.error().message;
        if (m_state == State::LoggedIn)
            m_refreshTimer.start(RefreshRetryMs);
        emit refreshFailed(tokens.error());
    });
}

void AccountSession::logout()
{
    m_refreshTimer.stop();
    m_tokens = {};
    m_email.clear();
    if (m_client)
        m_client->setBearerToken({});
    setState(m_client ? State::Connected : State::Disconnected);
    emit loggedOut();
}

} // namespace ddl
