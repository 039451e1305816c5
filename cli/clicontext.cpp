#include "clicontext.h"

#include "console.h"
#include "prompt.h"

#include <QDateTime>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static Error sessionExpired()
{
    return Error::make(u"session_expired"_s,
                       QCoreApplication::translate("CliContext",
                                                   "your session has expired; run ddlcli login "
                                                   "again"));
}

CliContext::CliContext(Console &console,
                       const GlobalOptions &options,
                       const QString &configDirectory)
    : m_console(console)
    , m_options(options)
    , m_config(configDirectory)
    , m_credentials(configDirectory)
{
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
        return Error::make(u"no_server"_s,
                           tr("no server given; pass --server https://HOST:PORT, set DDL_SERVER, "
                              "or log in once with --server so that it is remembered"),
                           u"server"_s);
    }
    return ConfigStore::normaliseServerUrl(text);
}

Result<QString> CliContext::serverKey()
{
    Result<QUrl> url = serverUrl();
    if (!url)
        return url.error();
    return ConfigStore::serverKey(*url);
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
        return Error::make(u"usage"_s,
                           tr("'%1' is not a SHA-256 fingerprint; copy it as shown, e.g. "
                              "SHA256:AB:CD:...(32 pairs)")
                               .arg(text),
                           u"trust-fingerprint"_s);
    }
    return hex.toLatin1();
}

Result<ServerTrust> CliContext::pinServer(const QString &key, const QByteArray &sha256Hex)
{
    m_config.setPinnedFingerprint(key, sha256Hex);
    if (Status saved = m_config.save(); !saved)
        return saved.error();
    ServerTrust trust;
    trust.pinnedSha256Hex = sha256Hex;
    return trust;
}

Result<ServerTrust> CliContext::resolveTrust(const QUrl &url, const QString &key)
{
    QString caPath = m_options.caCertificate;
    if (caPath.isEmpty())
        caPath = qEnvironmentVariable("DDL_CA_CERT");
    if (caPath.isEmpty())
        caPath = m_config.caCertificate(key);
    if (!caPath.isEmpty()) {
        if (!QFileInfo::exists(caPath)) {
            return Error::make(u"bad_ca_cert"_s,
                               tr("the CA certificate file %1 does not exist").arg(caPath),
                               u"ca-cert"_s);
        }
        return ServerTrust::fromCaFile(caPath);
    }

    if (!m_options.trustFingerprint.isEmpty()) {
        Result<QByteArray> expected = parseFingerprint(m_options.trustFingerprint);
        if (!expected)
            return expected.error();
        Result<QSslCertificate> certificate = fetchServerCertificate(url);
        if (!certificate)
            return certificate.error();
        const QByteArray actual = certificate->digest(QCryptographicHash::Sha256).toHex();
        if (actual != *expected) {
            return Error::make(u"certificate_mismatch"_s,
                               tr("the server at %1 presents the certificate %2, not the one given "
                                  "with --trust-fingerprint; do not trust it until its "
                                  "administrator confirms the fingerprint")
                                   .arg(url.toString(), formatFingerprint(*certificate)),
                               u"trust-fingerprint"_s);
        }
        return pinServer(key, actual);
    }

    const QByteArray pinned = m_config.pinnedFingerprint(key);
    if (!pinned.isEmpty()) {
        ServerTrust trust;
        trust.pinnedSha256Hex = pinned;
        return trust;
    }

    // A server with a certificate from a public CA needs no pin.
    {
        ApiClient probe(url);
        probe.setTimeoutMs(15000);
        Result<ApiResponse> answer = probe.getSync(u"/v1/version"_s);
        if (answer)
            return ServerTrust();
        if (answer.error().code != u"untrusted_certificate"_s)
            return answer.error();
    }

    Result<QSslCertificate> certificate = fetchServerCertificate(url);
    if (!certificate)
        return certificate.error();
    const QString fingerprint = formatFingerprint(*certificate);
    if (!m_console.stdinIsTerminal()) {
        return Error::make(u"untrusted_certificate"_s,
                           tr("the server at %1 is not trusted yet; its certificate fingerprint is "
                              "%2. After checking it with the server's administrator, pass "
                              "--trust-fingerprint=%2, or pass --ca-cert FILE (ddlcli cannot ask "
                              "because stdin is not a terminal)")
                               .arg(url.toString(), fingerprint),
                           u"trust-fingerprint"_s);
    }
    m_console.printError(tr("The server's certificate fingerprint is %1").arg(fingerprint) + u'\n');
    Prompt prompt(m_console);
    Result<bool> accepted = prompt.confirm(tr("Trust this server?"));
    if (!accepted)
        return accepted.error();
    if (!*accepted) {
        return Error::make(
            u"untrusted_certificate"_s,
            tr("you chose not to trust the server at %1; no credentials or data were sent to it")
                .arg(url.toString()));
    }
    return pinServer(key, certificate->digest(QCryptographicHash::Sha256).toHex());
}

Result<ApiClient *> CliContext::client()
{
    if (m_client)
        return m_client.get();
    Result<QUrl> url = serverUrl();
    if (!url)
        return url.error();
    const QString key = ConfigStore::serverKey(*url);
    Result<ServerTrust> trust = resolveTrust(*url, key);
    if (!trust)
        return trust.error();
    m_client = std::make_unique<ApiClient>(*url, *trust);
    return m_client.get();
}

Result<ApiResponse> CliContext::send(const std::function<ApiRequest *(ApiClient &)> &makeRequest)
{
    Result<ApiClient *> api = client();
    if (!api)
        return api.error();
    std::unique_ptr<ApiRequest> request(makeRequest(**api));
    return request->waitForFinished();
}

bool CliContext::isAuthError(const Error &error)
{
    return error.code == u"unauthorized"_s || error.code == u"session_expired"_s;
}

Status CliContext::storeSession(const QString &email, const QJsonObject &tokens)
{
    Result<QString> key = serverKey();
    if (!key)
        return key.error();
    Session session;
    session.email = email;
    session.accessToken = tokens.value("access_token"_L1).toString();
    session.refreshToken = tokens.value("refresh_token"_L1).toString();
    if (session.accessToken.isEmpty() || session.refreshToken.isEmpty()) {
        return Error::make(u"bad_answer"_s,
                           tr("the server's login answer holds no access_token or refresh_token; "
                              "is %1 a DDL server?")
                               .arg(*key));
    }
    const qint64 lifetime = tokens.value("expires_in"_L1).toInteger(600);
    session.accessExpiresAt = QDateTime::currentDateTimeUtc().addSecs(lifetime);
    m_credentials.setSession(*key, session);
    if (m_client)
        m_client->setBearerToken(session.accessToken);
    return m_credentials.save();
}

Status CliContext::refreshSession()
{
    Result<QString> key = serverKey();
    if (!key)
        return key.error();
    const std::optional<Session> session = m_credentials.session(*key);
    if (!session || session->refreshToken.isEmpty())
        return sessionExpired();
    Result<ApiResponse> answer = send([&](ApiClient &api) {
        api.setBearerToken({});
        return api.postJson(u"/v1/auth/refresh"_s,
                            QJsonObject{{"refresh_token"_L1, session->refreshToken}});
    });
    if (!answer) {
        // A refused refresh token means logging in again; a network failure is reported as such.
        const QString code = answer.error().code;
        if (isAuthError(answer.error()) || code == u"bad_request"_s || code == u"not_found"_s ||
            code == u"forbidden"_s) {
            return sessionExpired();
        }
        return answer.error();
    }
    return storeSession(session->email, answer->json());
}

Status CliContext::ensureSession()
{
    Result<ApiClient *> api = client();
    if (!api)
        return api.error();
    Result<QString> key = serverKey();
    if (!key)
        return key.error();
    const std::optional<Session> session = m_credentials.session(*key);
    if (!session) {
        return Error::make(u"not_logged_in"_s,
                           tr("you are not logged in to %1; run ddlcli login").arg(*key));
    }
    if (session->accessExpired(QDateTime::currentDateTimeUtc()))
        return refreshSession();
    (*api)->setBearerToken(session->accessToken);
    return Ok{};
}

Result<ApiResponse>
CliContext::sendAuthorized(const std::function<ApiRequest *(ApiClient &)> &makeRequest)
{
    if (Status ready = ensureSession(); !ready)
        return ready.error();
    Result<ApiResponse> answer = send(makeRequest);
    if (answer || !isAuthError(answer.error()))
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
        Status status = work(*m_client);
        if (status || !isAuthError(status.error()) || refreshes == MaxRefreshes)
            return status;
        if (Status refreshed = refreshSession(); !refreshed)
            return refreshed;
    }
}

} // namespace ddl::cli
