// ddlcli (run in-process) against the real ddl-server binary started as a process on loopback:
// how the server comes to be trusted, and how sessions are stored, refreshed and reported as
// expired. Sessions are expired and revoked by editing the server's own SQLite store.
#include "cliapplication.h"
#include "configstore.h"
#include "console.h"
#include "credentialstore.h"
#include "serverprocess.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSslCertificate>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::cli;

static const auto StoreConnection = "tst_cli_session_store"_L1;

struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
};

// How the server keeps a token: the lowercase hex SHA-256 of its text.
static QString tokenHash(const QString &token)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
}

class TestCliSession : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void untrustedServerWithoutTerminal();
    void trustFingerprintPins();
    void caCertificateTrusts();
    void registerPipesAnswers();
    void registerRefusesDifferentPasswords();
    void notLoggedIn();
    void loginStoresPrivateSession();
    void expiredAccessTokenIsRefreshed();
    void refusedTokenIsRefreshedAndRetried_data();
    void refusedTokenIsRefreshedAndRetried();
    void failedRefreshAsksForLogin_data();
    void failedRefreshAsksForLogin();
    void wrongPassword();

private:
    CliRun run(const QStringList &arguments, const QByteArray &input = {});
    QStringList trusted(const QStringList &arguments) const;
    void login();
    Session storedSession() const;
    QSqlQuery sql(const QString &statement, const QVariantList &values = {}) const;
    qint64 accessExpiresInStore(const QString &accessToken) const;
    bool refreshTokenInStore(const QString &refreshToken) const;
    int endedSessions() const;

    QTemporaryDir m_root;
    QString m_dataDir;
    std::unique_ptr<ServerProcess> m_server;
    QString m_url;
    QString m_fingerprint;
    QString m_caFile;
    std::unique_ptr<QTemporaryDir> m_config;
};

void TestCliSession::initTestCase()
{
    qunsetenv("DDL_SERVER");
    qunsetenv("DDL_CA_CERT");
    QVERIFY(m_root.isValid());
    m_dataDir = m_root.filePath(u"server"_s);

    m_server = std::make_unique<ServerProcess>(m_dataDir);
    const QString failure = m_server->start(0, {});
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    m_url = m_server->url().toString();

    // The self-signed certificate the server made for itself, as the user would fetch it.
    m_caFile = QDir(m_dataDir).filePath(u"tls/server.crt"_s);
    const QList<QSslCertificate> certificates = QSslCertificate::fromPath(m_caFile);
    QCOMPARE(certificates.size(), 1);
    const QByteArray hex =
        certificates.first().digest(QCryptographicHash::Sha256).toHex().toUpper();
    QStringList pairs;
    for (int i = 0; i < hex.size(); i += 2)
        pairs << QString::fromLatin1(hex.mid(i, 2));
    m_fingerprint = u"SHA256:"_s + pairs.join(u':');

    // A second connection to the server's store (WAL mode lets it write while the server runs).
    QSqlDatabase store = QSqlDatabase::addDatabase(u"QSQLITE"_s, StoreConnection);
    store.setDatabaseName(QDir(m_dataDir).filePath(u"ddl.sqlite"_s));
    store.setConnectOptions(u"QSQLITE_BUSY_TIMEOUT=5000"_s);
    QVERIFY2(store.open(), qPrintable(store.lastError().text()));
    // Counts the session rows that end. The server deletes a session only when its refresh token
    // is spent, so this counts the refreshes it granted.
    sql(u"CREATE TABLE test_ended_sessions (id INTEGER)"_s);
    sql(u"CREATE TRIGGER test_count_ended_sessions AFTER DELETE ON sessions BEGIN "
        "INSERT INTO test_ended_sessions VALUES (OLD.id); END"_s);
    if (QTest::currentTestFailed())
        return;

    // The account that the session tests log in with.
    m_config = std::make_unique<QTemporaryDir>();
    const CliRun registered = run(trusted({u"register"_s}), "a@b.c\npassword1\npassword1\n");
    QVERIFY2(registered.exitCode == 0, qPrintable(registered.err));
}

void TestCliSession::cleanupTestCase()
{
    if (QSqlDatabase::contains(StoreConnection)) {
        QSqlDatabase::database(StoreConnection, false).close();
        QSqlDatabase::removeDatabase(StoreConnection);
    }
    m_server.reset();
}

void TestCliSession::init()
{
    m_config = std::make_unique<QTemporaryDir>();
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

Session TestCliSession::storedSession() const
{
    CredentialStore credentials(m_config->path());
    if (!credentials.load().ok())
        return {};
    return credentials.session(m_url).value_or(Session{});
}

// Runs one statement on the server's store; a failure fails the test.
QSqlQuery TestCliSession::sql(const QString &statement, const QVariantList &values) const
{
    QSqlQuery query(QSqlDatabase::database(StoreConnection));
    if (!query.prepare(statement)) {
        QTest::qFail(
            qPrintable(statement + u": "_s + query.lastError().text()), __FILE__, __LINE__);
        return query;
    }
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        QTest::qFail(
            qPrintable(statement + u": "_s + query.lastError().text()), __FILE__, __LINE__);
    }
    return query;
}

// When the server lets the access token expire (ms since epoch), or -1 if it does not know it.
qint64 TestCliSession::accessExpiresInStore(const QString &accessToken) const
{
    QSqlQuery query = sql(u"SELECT access_expires FROM sessions WHERE access_hash = ?"_s,
                          {tokenHash(accessToken)});
    return query.next() ? query.value(0).toLongLong() : -1;
}

bool TestCliSession::refreshTokenInStore(const QString &refreshToken) const
{
    QSqlQuery query =
        sql(u"SELECT 1 FROM sessions WHERE refresh_hash = ?"_s, {tokenHash(refreshToken)});
    return query.next();
}

int TestCliSession::endedSessions() const
{
    QSqlQuery query = sql(u"SELECT COUNT(*) FROM test_ended_sessions"_s);
    return query.next() ? query.value(0).toInt() : -1;
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
    QCOMPARE(first.out,
             u"client: " DDL_VERSION "\nserver: " DDL_VERSION " (api 1, "_s + m_url + u")\n"_s);

    ConfigStore config(m_config->path());
    QVERIFY(config.load().ok());
    QCOMPARE(config.pinnedFingerprint(m_url),
             QByteArray(m_fingerprint.mid(7).remove(u':').toLower().toLatin1()));

    // Pinned: no flag needed any more, and JSON output for scripts.
    const CliRun second = run({u"version"_s, u"--server"_s, m_url, u"--output=json"_s});
    QVERIFY2(second.exitCode == 0, qPrintable(second.err));
    const QJsonObject version = QJsonDocument::fromJson(second.out.toUtf8()).object();
    QCOMPARE(version.value("client"_L1).toString(), QStringLiteral(DDL_VERSION));
    QCOMPARE(version.value("server"_L1).toString(), QStringLiteral(DDL_VERSION));
    QCOMPARE(version.value("api"_L1).toInt(), 1);
}

void TestCliSession::caCertificateTrusts()
{
    const CliRun result = run(trusted({u"version"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QVERIFY(result.out.contains(u"server: " DDL_VERSION " (api 1, "_s));

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
             "Status: 201\n"
             "Successfully registered\n"
             "Registered new@b.c on "_s +
                 m_url + u"; run ddlcli login to sign in.\n"_s);
    QVERIFY(sql(u"SELECT 1 FROM users WHERE email = 'new@b.c'"_s).next());

    // The server and its CA file are remembered for the commands that follow.
    ConfigStore config(m_config->path());
    QVERIFY(config.load().ok());
    QCOMPARE(config.defaultServer(), m_url);
    QCOMPARE(config.caCertificate(m_url), QFileInfo(m_caFile).absoluteFilePath());

    const CliRun taken = run(trusted({u"register"_s}), "new@b.c\npassword1\npassword1\n");
    QCOMPARE(taken.exitCode, 1);
    QCOMPARE(taken.err, u"ddlcli: error: new@b.c is already registered; run ddlcli login\n"_s);
}

void TestCliSession::registerRefusesDifferentPasswords()
{
    const CliRun different = run(trusted({u"register"_s}), "other@b.c\npassword1\npassword2\n");
    QCOMPARE(different.exitCode, 2);
    QCOMPARE(different.err,
             u"ddlcli: error: the two passwords differ; nothing was registered, try again\n"_s);

    const CliRun shortPassword = run(trusted({u"register"_s}), "other@b.c\nshort\nshort\n");
    QCOMPARE(shortPassword.exitCode, 2);
    QCOMPARE(shortPassword.err,
             u"ddlcli: error: the password must be at least 8 characters long\n"_s);

    const CliRun ended = run(trusted({u"register"_s}), "other@b.c\n");
    QCOMPARE(ended.exitCode, 1);
    QVERIFY2(ended.err.startsWith(u"ddlcli: error: no answer to \"Please enter your password:\""_s),
             qPrintable(ended.err));

    // Nothing reached the server.
    QVERIFY(!sql(u"SELECT 1 FROM users WHERE email = 'other@b.c'"_s).next());
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
             u"Please enter your email address: \nPlease enter your password: \nStatus: 200\n"
             "Successfully logged in\nLogged in as a@b.c on "_s +
                 m_url + u".\n"_s);

    CredentialStore credentials(m_config->path());
    QVERIFY(credentials.load().ok());
    const std::optional<Session> session = credentials.session(m_url);
    QVERIFY(session);
    QCOMPARE(session->email, u"a@b.c"_s);
    // The tokens kept are the ones the server stored for this session.
    QVERIFY(session->accessToken.startsWith(u"ddla_"_s));
    QVERIFY(accessExpiresInStore(session->accessToken) > QDateTime::currentMSecsSinceEpoch());
    QVERIFY(refreshTokenInStore(session->refreshToken));
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
    const Session before = storedSession();
    QVERIFY(!before.accessToken.isEmpty());
    // The access token's time is up, on the server and in the client's credentials.
    const qint64 past = QDateTime::currentMSecsSinceEpoch() - 5000;
    QCOMPARE(sql(u"UPDATE sessions SET access_expires = ? WHERE access_hash = ?"_s,
                 {past, tokenHash(before.accessToken)})
                 .numRowsAffected(),
             1);
    CredentialStore credentials(m_config->path());
    QVERIFY(credentials.load().ok());
    Session session = *credentials.session(m_url);
    session.accessExpiresAt = QDateTime::fromMSecsSinceEpoch(past, Qt::UTC);
    credentials.setSession(m_url, session);
    QVERIFY(credentials.save().ok());

    const int refreshes = endedSessions();
    const CliRun result = run(trusted({u"list"_s, u"--output"_s, u"json"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.out, u"{\"jobs\":[],\"total\":0}\n"_s);
    QCOMPARE(endedSessions(), refreshes + 1);

    // The refresh token was spent; the new session is the one the server now knows.
    const Session after = storedSession();
    QVERIFY(!refreshTokenInStore(before.refreshToken));
    QVERIFY(refreshTokenInStore(after.refreshToken));
    QVERIFY(after.accessToken != before.accessToken);
    QVERIFY(accessExpiresInStore(after.accessToken) > QDateTime::currentMSecsSinceEpoch());
    QVERIFY(!after.accessExpired(QDateTime::currentDateTimeUtc()));
}

void TestCliSession::refusedTokenIsRefreshedAndRetried_data()
{
    // The client still believes its access token good; the server refuses it.
    QTest::addColumn<QString>("change");
    QTest::newRow("revoked") << u"UPDATE sessions SET access_hash = 'revoked-' || id "
                                "WHERE access_hash = ?"_s;
    QTest::newRow("expired on the server")
        << u"UPDATE sessions SET access_expires = 0 WHERE access_hash = ?"_s;
}

void TestCliSession::refusedTokenIsRefreshedAndRetried()
{
    QFETCH(QString, change);
    login();
    const Session before = storedSession();
    QCOMPARE(sql(change, {tokenHash(before.accessToken)}).numRowsAffected(), 1);

    const int refreshes = endedSessions();
    const CliRun result = run(trusted({u"list"_s}));
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.out, u"No jobs yet.\n"_s);
    QCOMPARE(endedSessions(), refreshes + 1);
    const Session after = storedSession();
    QVERIFY(after.accessToken != before.accessToken);
    QVERIFY(accessExpiresInStore(after.accessToken) > QDateTime::currentMSecsSinceEpoch());
    QVERIFY(refreshTokenInStore(after.refreshToken));
}

void TestCliSession::failedRefreshAsksForLogin_data()
{
    QTest::addColumn<QString>("change");
    QTest::newRow("expired") << u"UPDATE sessions SET access_expires = 0, refresh_expires = 0 "
                                "WHERE access_hash = ?"_s;
    QTest::newRow("revoked") << u"DELETE FROM sessions WHERE access_hash = ?"_s;
}

void TestCliSession::failedRefreshAsksForLogin()
{
    QFETCH(QString, change);
    login();
    QCOMPARE(sql(change, {tokenHash(storedSession().accessToken)}).numRowsAffected(), 1);
    const CliRun result = run(trusted({u"list"_s}));
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.err, u"ddlcli: error: your session has expired; run ddlcli login again\n"_s);
}

void TestCliSession::wrongPassword()
{
    const CliRun result = run(trusted({u"login"_s}), "a@b.c\nwrong-password\n");
    QCOMPARE(result.exitCode, 1);
    QCOMPARE(result.err, u"ddlcli: error: wrong email address or password for a@b.c\n"_s);
    QVERIFY(storedSession().accessToken.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliSession)
#include "tst_cli_session.moc"
