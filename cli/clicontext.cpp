#include "clicontext.h"

#include "console.h"
#include "prompt.h"

#include "api/serveraddress.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static Error sessionExpired()
{
    return Error::make(ErrorCode::SessionExpired,
                       QCoreApplication::translate("CliContext",
                                                   "your session has expired; run ddlcli login "
                                                   "again"));
}

// Runs the event loop until sender emits one of the signals events.
template <typename Sender, typename... Events> static void waitFor(Sender *sender, Events... events)
{
    QEventLoop loop;
    (QObject::connect(sender, events, &loop, &QEventLoop::quit), ...);
    loop.exec();
}

CliContext::CliContext(Console &console,
                       const GlobalOptions &options,
                       const QString &configDirectory)
    : m_console(console)
    , m_options(options)
    , m_config(configDirectory)
    , m_credentials(configDirectory)
{
    QObject::connect(&m_account,
                     &AccountSession::certificateNeedsTrust,
                     &m_account,
                     [this](const QString &fingerprint, const QByteArray &sha256Hex) {
                         handleCertificate(fingerprint, sha256Hex);
                     });
    QObject::connect(&m_account,
                     &AccountSession::tokensChanged,
                     &m_account,
                     [this](const SessionTokens &tokens) { handleTokens(tokens); });
}

CliContext::~CliContext() = default;

Status CliContext::load()
{
    if (Status status = m_config.load(); !status)
        return status;
    return m_credentials.load();
}

Result<QUrl> CliContext::serverUrl()
{
    QString text = m_options.server;
    if (text.isEmpty())
        text = qEnvironmentVariable("DDL_SERVER");
    if (text.isEmpty())
        text = m_config.defaultServer();
    if (text.isEmpty()) {
        return Error::make(ErrorCode::NoServer,
                           tr("no server given; pass --server https://HOST:PORT, set DDL_SERVER, "
                              "or log in once with --server so that it is remembered"),
                           u"server"_s);
    }
    return ServerAddress::parse(text);
}

Result<QString> CliContext::serverKey()
{
    Result<QUrl> url = serverUrl();
    if (!url)
        return url.error();
    return ServerAddress::key(*url);
}

Result<QByteArray> CliContext::parseFingerprint(const QString &text)
{
    QString hex = text.trimmed();
    if (hex.startsWith(u"SHA256:"_s, Qt::CaseInsensitive))
        hex = hex.mid(7);
    hex.remove(u':');
    hex = hex.toLower();
    static const QRegularExpression sha256(u"^[0-9a-f]{64}$"_s);
    if (!sha256.match(hex).hasMatch()) {
        return Error::make(ErrorCode::Usage,
                           tr("'%1' is not a SHA-256 fingerprint; copy it as shown, e.g. "
                              "SHA256:AB:CD:...(32 pairs)")
                               .arg(text),
                           u"trust-fingerprint"_s);
    }
    return hex.toLatin1();
}

Result<ServerTrust> CliContext::knownTrust(const QString &key)
{
    QString caPath = m_options.caCertificate;
    if (caPath.isEmpty())
        caPath = qEnvironmentVariable("DDL_CA_CERT");
    if (caPath.isEmpty())
        caPath = m_config.caCertificate(key);
    if (!caPath.isEmpty()) {
        if (!QFileInfo::exists(caPath)) {
            return Error::make(ErrorCode::BadCaCert,
                               tr("the CA certificate file %1 does not exist").arg(caPath),
                               u"ca-cert"_s);
        }
        return ServerTrust::fromCaFile(caPath);
    }
    ServerTrust trust;
    if (!m_options.trustFingerprint.isEmpty()) {
        // Checked before anything is sent; the server's certificate is compared with it when
        // the session asks (handleCertificate), and pinned anew.
        if (Result<QByteArray> expected = parseFingerprint(m_options.trustFingerprint); !expected)
            return expected.error();
        return trust;
    }
    trust.pinnedSha256Hex = m_config.pinnedFingerprint(key);
    return trust;
}

void CliContext::handleCertificate(const QString &fingerprint, const QByteArray &sha256Hex)
{
    const QString url = m_account.serverKey();
    auto trust = [&]() -> Status {
        if (!m_options.trustFingerprint.isEmpty()) {
            if (*parseFingerprint(m_options.trustFingerprint) == sha256Hex)
                return Ok{};
            return Error::make(ErrorCode::CertificateChanged,
                               tr("the server at %1 presents the certificate %2, not the one "
                                  "given with --trust-fingerprint; do not trust it until its "
                                  "administrator confirms the fingerprint")
                                   .arg(url, fingerprint),
                               u"trust-fingerprint"_s);
        }
        if (!m_console.stdinIsTerminal()) {
            return Error::make(ErrorCode::UntrustedCertificate,
                               tr("the server at %1 is not trusted yet; its certificate "
                                  "fingerprint is %2. After checking it with the server's "
                                  "administrator, pass --trust-fingerprint=%2, or pass --ca-cert "
                                  "FILE (ddlcli cannot ask because stdin is not a terminal)")
                                   .arg(url, fingerprint),
                               u"trust-fingerprint"_s);
        }
        m_console.printError(tr("The server's certificate fingerprint is %1").arg(fingerprint) +
                             u'\n');
        Prompt prompt(m_console);
        Result<bool> accepted = prompt.confirm(tr("Trust this server?"));
        if (!accepted)
            return accepted.error();
        if (!*accepted) {
            return Error::make(ErrorCode::UntrustedCertificate,
                               tr("you chose not to trust the server at %1; no credentials or "
                                  "data were sent to it")
                                   .arg(url));
        }
        return Ok{};
    }();
    if (trust) {
        m_config.setPinnedFingerprint(m_account.serverKey(), sha256Hex);
        trust = m_config.save();
    }
    if (!trust) {
        m_account.refuseCertificate(trust.error());
        return;
    }
    m_account.trustCertificate(sha256Hex);
}

Result<ApiClient *> CliContext::client()
{
    if (m_account.state() == AccountSession::State::Connected ||
        m_account.state() == AccountSession::State::LoggedIn) {
        return m_account.client();
    }
    Result<QUrl> url = serverUrl();
    if (!url)
        return url.error();
    Result<ServerTrust> trust = knownTrust(ServerAddress::key(*url));
    if (!trust)
        return trust.error();
    Error failure;
    QObject connection;
    QObject::connect(&m_account,
                     &AccountSession::failed,
                     &connection,
                     [&failure](const Error &error) { failure = error; });
    m_account.connectToServer(*url, *trust);
    waitFor(&m_account, &AccountSession::connected, &AccountSession::failed);
    if (m_account.state() != AccountSession::State::Connected)
        return failure;
    return m_account.client();
}

Result<ApiResponse> CliContext::send(const std::function<ApiRequest *(ApiClient &)> &makeRequest)
{
    Result<ApiClient *> api = client();
    if (!api)
        return api.error();
    std::unique_ptr<ApiRequest> request(makeRequest(**api));
    return request->waitForFinished();
}

void CliContext::handleTokens(const SessionTokens &tokens)
{
    Session session;
    session.email = m_account.email();
    session.accessToken = tokens.accessToken;
    session.refreshToken = tokens.refreshToken;
    session.accessExpiresAt = tokens.accessExpiresAt;
    m_credentials.setSession(m_account.serverKey(), session);
    if (Status saved = m_credentials.save(); !saved)
        m_console.printError(tr("warning: %1").arg(saved.error().message) + u'\n');
}

Status CliContext::awaitSignIn(const std::function<void()> &start)
{
    std::optional<Error> failure;
    QObject connection;
    QObject::connect(&m_account,
                     &AccountSession::refreshFailed,
                     &connection,
                     [&failure](const Error &error) { failure = error; });
    QObject::connect(&m_account, &AccountSession::sessionExpired, &connection, [&failure] {
        failure = sessionExpired();
    });
    start();
    if (m_account.isRefreshing()) {
        waitFor(&m_account,
                &AccountSession::refreshed,
                &AccountSession::sessionExpired,
                &AccountSession::refreshFailed);
    }
    if (failure)
        return *failure;
    return Ok{};
}

Status CliContext::refreshSession()
{
    // A refused token may have started a refresh already: it is waited for, not repeated.
    return awaitSignIn([this] {
        if (!m_account.isRefreshing())
            m_account.refresh();
    });
}

Status CliContext::ensureSession()
{
    Result<ApiClient *> api = client();
    if (!api)
        return api.error();
    if (m_account.state() == AccountSession::State::LoggedIn)
        return Ok{};
    const QString key = m_account.serverKey();
    const std::optional<Session> session = m_credentials.session(key);
    if (!session) {
        return Error::make(ErrorCode::NotLoggedIn,
                           tr("you are not logged in to %1; run ddlcli login").arg(key));
    }
    if (!m_expectedUser.isEmpty() &&
        session->email.compare(m_expectedUser, Qt::CaseInsensitive) != 0) {
        return Error::make(ErrorCode::NotLoggedIn,
                           tr("%1 names the user %2, but you are logged in to %3 as %4; log in "
                              "as %2 (paddle login), or change username there")
                               .arg(m_expectedUserOrigin, m_expectedUser, key, session->email),
                           u"username"_s);
    }
    return awaitSignIn([&] {
        m_account.resume(session->email,
                         {session->accessToken, session->refreshToken, session->accessExpiresAt});
    });
}

Result<ApiResponse>
CliContext::sendAuthorized(const std::function<ApiRequest *(ApiClient &)> &makeRequest)
{
    if (Status ready = ensureSession(); !ready)
        return ready.error();
    Result<ApiResponse> answer = send(makeRequest);
    if (answer || !isUnauthorized(answer.error()))
        return answer;
    if (Status refreshed = refreshSession(); !refreshed)
        return refreshed.error();
    return send(makeRequest);
}

Status CliContext::runAuthorized(const std::function<Status(ApiClient &)> &work)
{
    if (Status ready = ensureSession(); !ready)
        return ready;
    // Each refresh buys ten minutes; a transfer longer than that refreshes again and resumes.
    constexpr int MaxRefreshes = 50;
    for (int refreshes = 0;; ++refreshes) {
        Status status = work(*m_account.client());
        if (status || !isUnauthorized(status.error()) || refreshes == MaxRefreshes)
            return status;
        if (Status refreshed = refreshSession(); !refreshed)
            return refreshed;
    }
}

} // namespace ddl::cli
