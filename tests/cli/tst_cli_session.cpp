// ddlcli against a small fake DDL server over TLS: how the server comes to be trusted, and how
// sessions are stored, refreshed and reported as expired.
#include "cliapplication.h"
#include "configstore.h"
#include "console.h"
#include "credentialstore.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QSemaphore>
#include <QSslKey>
#include <QSslServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::cli;

// A self-signed certificate for 127.0.0.1, valid until 2126, made for these tests only.
static const char CertificatePem[] = R"(-----BEGIN CERTIFICATE-----
MIIBxDCCAWmgAwIBAgIUdv+XUhgW98YCsS7pgv20t5xaxn4wCgYIKoZIzj0EAwIw
KDESMBAGA1UECgwJRERMIHRlc3RzMRIwEAYDVQQDDAkxMjcuMC4wLjEwIBcNMjYx
MTIyMTgzNzA2WhgPMjEyNjEwMjkxODM3MDZaMCgxEjAQBgNVBAoMCURETCB0ZXN0
czESMBAGA1UEAwwJMTI3LjAuMC4xMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
X2idEn8eMdu4hkosPnA4LsV9mGBMYfQ6r8pxdj8IDoWsYN/ck7wE56Tuu4/ikaAi
fQCodHjnM4q3MLvv0kZDZKNvMG0wHQYDVR0OBBYEFIXDRJIP6zYdEUP9FftlbHsU
QtG1MB8GA1UdIwQYMBaAFIXDRJIP6zYdEUP9FftlbHsUQtG1MA8GA1UdEwEB/wQF
MAMBAf8wGgYDVR0RBBMwEYcEfwAAAYIJbG9jYWxob3N0MAoGCCqGSM49BAMCA0kA
MEYCIQCewSVGUfR9Fr93IcP/5Vj88jUg1QtJL44XYUy5erBRcQIhAJOONc6Yg4iO
gkxfcWLy3BYqfj0BcuagU2B1QLZNmg4V
-----END CERTIFICATE-----
)";
static const char PrivateKeyPem[] = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgGRdUOFh8Ij517AgM
8Ko9xsbesMyA4rOuCZrNEwu9sMuhRANCAARfaJ0Sfx4x27iGSiw+cDguxX2YYExh
9DqvynF2PwgOhaxg39yTvATnpO67j+KRoCJ9AKh0eOczircwu+/SRkNk
-----END PRIVATE KEY-----
)";

static QHttpServerResponse
errorResponse(const QString &code, const QString &message, QHttpServerResponse::StatusCode status)
{
    return QHttpServerResponse(
        QJsonObject{{"error"_L1, QJsonObject{{"code"_L1, code}, {"message"_L1, message}}}}, status);
}

// The parts of the API that sessions touch. Runs in its own thread, because ddlcli blocks its
// thread while it waits for the TLS handshake of a certificate it fetches.
class FakeServer : public QThread
{
public:
    ~FakeServer() override
    {
        quit();
        wait();
    }

    quint16 startAndWait()
    {
        start();
        m_ready.acquire();
        return m_port;
    }

    // Makes the server forget the current access token (as after a restart).
    void revokeAccessToken()
    {
        QMutexLocker lock(&m_mutex);
        m_access = u"revoked"_s;
    }
    void setRefreshAllowed(bool allowed)
    {
        QMutexLocker lock(&m_mutex);
        m_refreshAllowed = allowed;
    }
    int refreshCount()
    {
        QMutexLocker lock(&m_mutex);
        return m_refreshes;
    }
    QString accessToken()
    {
        QMutexLocker lock(&m_mutex);
        return m_access;
    }

protected:
    void run() override
    {
        QHttpServer http;
        // bind() makes the QHttpServer the owner of the QSslServer.
        auto *tcp = new QSslServer;
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setLocalCertificate(QSslCertificate(QByteArray(CertificatePem)));
        ssl.setPrivateKey(QSslKey(QByteArray(PrivateKeyPem), QSsl::Ec));
        tcp->setSslConfiguration(ssl);
        if (!tcp->listen(QHostAddress::LocalHost, 0))
            qFatal("cannot listen: %s", qPrintable(tcp->errorString()));
        addRoutes(http);
        http.bind(tcp);
        m_port = tcp->serverPort();
        m_ready.release();
        exec();
    }

private:
    QHttpServerResponse issueTokens()
    {
        ++m_issued;
        m_access = u"ddla_"_s + QString::number(m_issued);
        m_refresh = u"ddlr_"_s + QString::number(m_issued);
        return QHttpServerResponse(QJsonObject{{"access_token"_L1, m_access},
                                               {"refresh_token"_L1, m_refresh},
                                               {"expires_in"_L1, 600}});
    }

    void addRoutes(QHttpServer &http)
    {
        using Method = QHttpServerRequest::Method;
        using Status = QHttpServerResponse::StatusCode;
        http.route(u"/v1/version"_s, Method::Get, [](const QHttpServerRequest &) {
            return QHttpServerResponse(QJsonObject{{"server"_L1, u"9.9.9"_s}, {"api"_L1, 1}});
        });
        http.route(u"/v1/auth/register"_s, Method::Post, [](const QHttpServerRequest &request) {
            const QJsonObject body = QJsonDocument::fromJson(request.body()).object();
            if (body.value("email"_L1).toString() == u"taken@b.c"_s)
                return errorResponse(u"conflict"_s, u"taken"_s, Status::Conflict);
            return QHttpServerResponse(QJsonObject{{"email"_L1, body.value("email"_L1)}},
                                       Status::Created);
        });
        http.route(u"/v1/auth/login"_s, Method::Post, [this](const QHttpServerRequest &request) {
            const QJsonObject body = QJsonDocument::fromJson(request.body()).object();
            QMutexLocker lock(&m_mutex);
            if (body.value("password"_L1).toString() != u"password1"_s)
                return errorResponse(u"unauthorized"_s, u"wrong password"_s, Status::Unauthorized);
            return issueTokens();
        });
        http.route(u"/v1/auth/refresh"_s, Method::Post, [this](const QHttpServerRequest &request) {
            const QJsonObject body = QJsonDocument::fromJson(request.body()).object();
            QMutexLocker lock(&m_mutex);
            ++m_refreshes;
            if (!m_refreshAllowed || body.value("refresh_token"_L1).toString() != m_refresh) {
                return errorResponse(u"session_expired"_s, u"log in again"_s, Status::Unauthorized);
            }
            return issueTokens();
        });
        http.route(u"/v1/jobs"_s, Method::Get, [this](const QHttpServerRequest &request) {
            QMutexLocker lock(&m_mutex);
            if (request.value("Authorization") != "Bearer " + m_access.toUtf8()) {
                return errorResponse(
                    u"session_expired"_s, u"token expired"_s, Status::Unauthorized);
            }
            return QHttpServerResponse(QJsonObject{{"jobs"_L1, QJsonArray()}, {"total"_L1, 0}});
        });
    }

    QSemaphore m_ready;
    quint16 m_port = 0;
    QMutex m_mutex;
    QString m_access;
    QString m_refresh;
    int m_issued = 0;
    int m_refreshes = 0;
    bool m_refreshAllowed = true;
};

struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
};

class TestCliSession : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void untrustedServerWithoutTerminal();
    void trustFingerprintPins();
    void caCertificateTrusts();
    void registerPipesAnswers();
    void registerRefusesDifferentPasswords();
    void notLoggedIn();
    void loginStoresPrivateSession();
    void expiredAccessTokenIsRefreshed();
    void refusedTokenIsRefreshedAndRetried();
    void failedRefreshAsksForLogin();
    void wrongPassword();

private:
    CliRun run(const QStringList &arguments, const QByteArray &input = {});
    QStringList trusted(const QStringList &arguments) const;
    void login();

    FakeServer m_server;
    QString m_url;
    QString m_fingerprint;
    std::unique_ptr<QTemporaryDir> m_config;
    QTemporaryDir m_files;
    QString m_caFile;
};

void TestCliSession::initTestCase()
{
    qunsetenv("DDL_SERVER");
    qunsetenv("DDL_CA_CERT");
    const quint16 port = m_server.startAndWait();
    m_url = u"https://127.0.0.1:"_s + QString::number(port);
    const QSslCertificate certificate{QByteArray(CertificatePem)};
    QVERIFY(!certificate.isNull());
    const QByteArray hex = certificate.digest(QCryptographicHash::Sha256).toHex().toUpper();
    QStringList pairs;
    for (int i = 0; i < hex.size(); i += 2)
        pairs << QString::fromLatin1(hex.mid(i, 2));
    m_fingerprint = u"SHA256:"_s + pairs.join(u':');
    m_caFile = m_files.filePath(u"server.crt"_s);
    QFile file(m_caFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(CertificatePem);
}

void TestCliSession::init()
{
    m_config = std::make_unique<QTemporaryDir>();
    m_server.setRefreshAllowed(true);
}

CliRun TestCliSession::run(const QStringList &arguments, const QByteArray &input)
{
    QByteArray inBytes = input;
    QBuffer in(&inBytes);
    QBuffer out;
    QBuffer err;
    in.open(QIODevice::ReadOnly);
    out.open(QIODevice::WriteOnly);
    err.open(QIODevice::WriteOnly);
    Console console(&in, &out, &err);
    CliApplication cli(console, m_config->path());
    CliRun result;
    result.exitCode = cli.run(arguments);
    result.out = QString::fromUtf8(out.data());
    result.err = QString::fromUtf8(err.data());
    return result;
}

QStringList TestCliSession::trusted(const QStringList &arguments) const
{
    return arguments + QStringList{u"--server"_s, m_url, u"--ca-cert"_s, m_caFile};
}

void TestCliSession::login()
{
    const CliRun result = run(trusted({u"login"_s}), "a@b.c\npassword1\n");
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
}

void TestCliSession::untrustedServerWithoutTerminal()
{
    const CliRun result = run({u"version"_s, u"--server"_s, m_url});
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.out, u"client: " DDL_VERSION "\n"_s);
    QVERIFY2(result.err.startsWith(u"ddlcli: error: the server at "_s + m_url +
                                   u" is not trusted yet; its certificate fingerprint is "_s +
                                   m_fingerprint),
             qPrintable(result.err));
    QVERIFY(result.err.contains(u"--trust-fingerprint="_s + m_fingerprint));
    QVERIFY(result.err.contains(u"--ca-cert FILE"_s));
    QVERIFY(result.err.endsWith(u"\n"_s) && result.err.count(u'\n') == 1);
}

void TestCliSession::trustFingerprintPins()
{
    const CliRun wrong = run(
        {u"version"_s, u"--server"_s, m_url, u"--trust-fingerprint=SHA256:"_s + QString(64, u'0')});
    QCOMPARE(wrong.exitCode, 1);
    QVERIFY2(wrong.err.contains(u"presents the certificate "_s + m_fingerprint),
             qPrintable(wrong.err));

    const CliRun first =
        run({u"version"_s, u"--server"_s, m_url, u"--trust-fingerprint"_s, m_fingerprint});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    QCOMPARE(first.out, u"client: " DDL_VERSION "\nserver: 9.9.9 (api 1, "_s + m_url + u")\n"_s);

    ConfigStore config(m_config->path());
    QVERIFY(config.load().ok());
    QCOMPARE(config.pinnedFingerprint(m_url),
             QByteArray(m_fingerprint.mid(7).remove(u':').toLower().toLatin1()));

    // Pinned: no flag needed any more, and JSON output for scripts.
    const CliRun second = run({u"version"_s, u"--server"_s, m_url, u"--output=json"_s});
    QVERIFY2(second.exitCode == 0, qPrintable(second.err));
    const QJsonObject version = QJsonDocument::fromJson(second.out.toUtf8()).object();
    QCOMPARE(version.value("client"_L1).toString(), QStringLiteral(DDL_VERSION));
    QCOMPARE(version.value("server"_L1).toString(), u"9.9.9"_s);
    QCOMPARE(version.value("api"_L1).toInt(), 1);
}

void TestCliSession::caCertificateTrusts()
{
    const CliRun result = run(trusted({u"version"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QVERIFY(result.out.contains(u"server: 9.9.9"_s));

    const CliRun missing =
        run({u"version"_s, u"--server"_s, m_url, u"--ca-cert=/nonexistent.pem"_s});
    QCOMPARE(missing.exitCode, 1);
    QCOMPARE(missing.err,
             u"ddlcli: error: the CA certificate file /nonexistent.pem does not exist\n"_s);
}

void TestCliSession::registerPipesAnswers()
{
    const CliRun result = run(trusted({u"register"_s}), "new@b.c\npassword1\npassword1\n");
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.out,
             u"Please enter your email address: \n"
             "Please enter your password: \n"
             "Please re-enter your password: \n"
             "Registered new@b.c on "_s +
                 m_url + u"; run ddlcli login to sign in.\n"_s);

    // The server and its CA file are remembered for the commands that follow.
    ConfigStore config(m_config->path());
    QVERIFY(config.load().ok());
    QCOMPARE(config.defaultServer(), m_url);
    QCOMPARE(config.caCertificate(m_url), QFileInfo(m_caFile).absoluteFilePath());

    const CliRun taken = run(trusted({u"register"_s}), "taken@b.c\npassword1\npassword1\n");
    QCOMPARE(taken.exitCode, 1);
    QCOMPARE(taken.err, u"ddlcli: error: taken@b.c is already registered; run ddlcli login\n"_s);
}

void TestCliSession::registerRefusesDifferentPasswords()
{
    const CliRun different = run(trusted({u"register"_s}), "a@b.c\npassword1\npassword2\n");
    QCOMPARE(different.exitCode, 2);
    QCOMPARE(different.err,
             u"ddlcli: error: the two passwords differ; nothing was registered, try again\n"_s);

    const CliRun shortPassword = run(trusted({u"register"_s}), "a@b.c\nshort\nshort\n");
    QCOMPARE(shortPassword.exitCode, 2);
    QCOMPARE(shortPassword.err,
             u"ddlcli: error: the password must be at least 8 characters long\n"_s);

    const CliRun ended = run(trusted({u"register"_s}), "a@b.c\n");
    QCOMPARE(ended.exitCode, 1);
    QVERIFY2(ended.err.startsWith(u"ddlcli: error: no answer to \"Please enter your password:\""_s),
             qPrintable(ended.err));
}

void TestCliSession::notLoggedIn()
{
    const CliRun result = run(trusted({u"list"_s}));
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.err,
             u"ddlcli: error: you are not logged in to "_s + m_url + u"; run ddlcli login\n"_s);
}

void TestCliSession::loginStoresPrivateSession()
{
    const CliRun result = run(trusted({u"login"_s}), "a@b.c\npassword1\n");
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.out,
             u"Please enter your email address: \nPlease enter your password: \nLogged in as "
             "a@b.c on "_s +
                 m_url + u".\n"_s);

    CredentialStore credentials(m_config->path());
    QVERIFY(credentials.load().ok());
    const std::optional<Session> session = credentials.session(m_url);
    QVERIFY(session);
    QCOMPARE(session->email, u"a@b.c"_s);
    QCOMPARE(session->accessToken, m_server.accessToken());
    QVERIFY(!session->accessExpired(QDateTime::currentDateTimeUtc()));
#ifdef Q_OS_UNIX
    const auto ownerGroupOther = QFileDevice::Permissions(0x7077);
    QCOMPARE(QFileInfo(credentials.filePath()).permissions() & ownerGroupOther,
             QFileDevice::ReadOwner | QFileDevice::WriteOwner);
#endif

    // Later commands find the server, its trust and the session on their own.
    const CliRun list = run({u"list"_s});
    QVERIFY2(list.exitCode == 0, qPrintable(list.err));
    QCOMPARE(list.out, u"No jobs yet.\n"_s);
}

void TestCliSession::expiredAccessTokenIsRefreshed()
{
    login();
    CredentialStore credentials(m_config->path());
    QVERIFY(credentials.load().ok());
    Session session = *credentials.session(m_url);
    session.accessExpiresAt = QDateTime::currentDateTimeUtc().addSecs(-5);
    credentials.setSession(m_url, session);
    QVERIFY(credentials.save().ok());

    const int refreshes = m_server.refreshCount();
    const CliRun result = run(trusted({u"list"_s, u"--output"_s, u"json"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.out, u"{\"jobs\":[],\"total\":0}\n"_s);
    QCOMPARE(m_server.refreshCount(), refreshes + 1);

    CredentialStore reloaded(m_config->path());
    QVERIFY(reloaded.load().ok());
    QCOMPARE(reloaded.session(m_url)->accessToken, m_server.accessToken());
    QVERIFY(!reloaded.session(m_url)->accessExpired(QDateTime::currentDateTimeUtc()));
}

void TestCliSession::refusedTokenIsRefreshedAndRetried()
{
    login();
    m_server.revokeAccessToken();
    const int refreshes = m_server.refreshCount();
    const CliRun result = run(trusted({u"list"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(m_server.refreshCount(), refreshes + 1);
}

void TestCliSession::failedRefreshAsksForLogin()
{
    login();
    m_server.revokeAccessToken();
    m_server.setRefreshAllowed(false);
    const CliRun result = run(trusted({u"list"_s}));
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.err, u"ddlcli: error: your session has expired; run ddlcli login again\n"_s);
}

void TestCliSession::wrongPassword()
{
    const CliRun result = run(trusted({u"login"_s}), "a@b.c\nwrong-password\n");
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.err, u"ddlcli: error: wrong email address or password for a@b.c\n"_s);
}

QTEST_GUILESS_MAIN(TestCliSession)
#include "tst_cli_session.moc"
