#include "clicontext.h"
#include "configstore.h"
#include "credentialstore.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::cli;

class TestCliConfigStore : public QObject
{
    Q_OBJECT

private slots:
    void defaultDirectoryFollowsXdg();
    void configRoundTrip();
    void pinsArePerServer();
    void badJsonNamesTheFile();
    void credentialsArePrivate();
    void credentialsArePerServer();
    void sessionExpiry();
    void parseFingerprint_data();
    void parseFingerprint();
};

void TestCliConfigStore::defaultDirectoryFollowsXdg()
{
#ifdef Q_OS_UNIX
    QTemporaryDir home;
    const QByteArray saved = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", home.path().toUtf8());
    QCOMPARE(ConfigStore::defaultDirectory(), home.path() + u"/ddl"_s);
    QCOMPARE(ConfigStore().filePath(), home.path() + u"/ddl/config.json"_s);
    if (saved.isEmpty())
        qunsetenv("XDG_CONFIG_HOME");
    else
        qputenv("XDG_CONFIG_HOME", saved);
#else
    QSKIP("XDG_CONFIG_HOME is a Unix convention");
#endif
}

void TestCliConfigStore::configRoundTrip()
{
    QTemporaryDir dir;
    const QString folder = dir.path() + u"/nested/ddl"_s;
    {
        ConfigStore store(folder);
        QVERIFY(store.load().ok()); // a missing file is an empty config
        QVERIFY(store.defaultServer().isEmpty());
        store.setDefaultServer(u"https://a:1"_s);
        store.setCaCertificate(u"https://a:1"_s, u"/etc/ddl/ca.pem"_s);
        QVERIFY(store.save().ok());
    }
    ConfigStore store(folder);
    QVERIFY(store.load().ok());
    QCOMPARE(store.defaultServer(), u"https://a:1"_s);
    QCOMPARE(store.caCertificate(u"https://a:1"_s), u"/etc/ddl/ca.pem"_s);
    QVERIFY(store.caCertificate(u"https://b:1"_s).isEmpty());

    QFile file(store.filePath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(root.value("server"_L1).toString(), u"https://a:1"_s);
    QCOMPARE(root.value("servers"_L1)["https://a:1"_L1]["ca_cert"_L1].toString(),
             u"/etc/ddl/ca.pem"_s);
}

void TestCliConfigStore::pinsArePerServer()
{
    QTemporaryDir dir;
    const QByteArray first(64, 'a');
    const QByteArray second = QByteArray(63, 'b') + 'C';
    {
        ConfigStore store(dir.path());
        store.setPinnedFingerprint(u"https://a:1"_s, first);
        store.setPinnedFingerprint(u"https://b:2"_s, second);
        QVERIFY(store.save().ok());
    }
    ConfigStore store(dir.path());
    QVERIFY(store.load().ok());
    QCOMPARE(store.pinnedFingerprint(u"https://a:1"_s), first);
    QCOMPARE(store.pinnedFingerprint(u"https://b:2"_s), second.toLower());
    QVERIFY(store.pinnedFingerprint(u"https://a:2"_s).isEmpty());

    store.removePinnedFingerprint(u"https://a:1"_s);
    QVERIFY(store.save().ok());
    ConfigStore reloaded(dir.path());
    QVERIFY(reloaded.load().ok());
    QVERIFY(reloaded.pinnedFingerprint(u"https://a:1"_s).isEmpty());
    QCOMPARE(reloaded.pinnedFingerprint(u"https://b:2"_s), second.toLower());
}

void TestCliConfigStore::badJsonNamesTheFile()
{
    QTemporaryDir dir;
    QFile file(dir.filePath(u"config.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"server\": ");
    file.close();
    ConfigStore store(dir.path());
    const ddl::Status loaded = store.load();
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().code, u"invalid_config"_s);
    QVERIFY(loaded.error().message.contains(file.fileName()));
    QVERIFY(loaded.error().message.contains(u"fix or delete it"_s));
}

static Session makeSession(const QString &email, const QString &suffix)
{
    Session session;
    session.email = email;
    session.accessToken = u"ddla_"_s + suffix;
    session.refreshToken = u"ddlr_"_s + suffix;
    session.accessExpiresAt = QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5), Qt::UTC);
    return session;
}

void TestCliConfigStore::credentialsArePrivate()
{
#ifdef Q_OS_UNIX
    QTemporaryDir dir;
    const QString folder = dir.path() + u"/ddl"_s;
    CredentialStore store(folder);
    store.setSession(u"https://a:1"_s, makeSession(u"a@b.c"_s, u"1"_s));
    QVERIFY(store.save().ok());

    const auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    const auto mask = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                      QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                      QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
    QCOMPARE(QFileInfo(store.filePath()).permissions() & mask, ownerOnly);
    QCOMPARE(QFileInfo(folder).permissions() & mask, ownerOnly | QFileDevice::ExeOwner);

    // A file made readable by others is private again after the next save.
    QVERIFY(QFile::setPermissions(store.filePath(), ownerOnly | QFileDevice::ReadOther));
    store.setSession(u"https://a:1"_s, makeSession(u"a@b.c"_s, u"2"_s));
    QVERIFY(store.save().ok());
    QCOMPARE(QFileInfo(store.filePath()).permissions() & mask, ownerOnly);
#else
    QSKIP("file modes are a Unix matter");
#endif
}

void TestCliConfigStore::credentialsArePerServer()
{
    QTemporaryDir dir;
    {
        CredentialStore store(dir.path());
        QVERIFY(store.load().ok());
        QVERIFY(!store.session(u"https://a:1"_s));
        store.setSession(u"https://a:1"_s, makeSession(u"a@b.c"_s, u"a"_s));
        store.setSession(u"https://b:2"_s, makeSession(u"x@y.z"_s, u"b"_s));
        QVERIFY(store.save().ok());
    }
    CredentialStore store(dir.path());
    QVERIFY(store.load().ok());
    const std::optional<Session> a = store.session(u"https://a:1"_s);
    const std::optional<Session> b = store.session(u"https://b:2"_s);
    QVERIFY(a && b);
    QCOMPARE(a->email, u"a@b.c"_s);
    QCOMPARE(a->accessToken, u"ddla_a"_s);
    QCOMPARE(a->refreshToken, u"ddlr_a"_s);
    QCOMPARE(a->accessExpiresAt, makeSession({}, {}).accessExpiresAt);
    QCOMPARE(b->email, u"x@y.z"_s);
    QCOMPARE(b->accessToken, u"ddla_b"_s);

    store.removeSession(u"https://a:1"_s);
    QVERIFY(store.save().ok());
    CredentialStore reloaded(dir.path());
    QVERIFY(reloaded.load().ok());
    QVERIFY(!reloaded.session(u"https://a:1"_s));
    QVERIFY(reloaded.session(u"https://b:2"_s));
}

void TestCliConfigStore::sessionExpiry()
{
    Session session = makeSession(u"a@b.c"_s, u"1"_s);
    const QDateTime end = session.accessExpiresAt;
    QVERIFY(!session.accessExpired(end.addSecs(-60)));
    QVERIFY(session.accessExpired(end.addSecs(-10))); // within the 30 s margin
    QVERIFY(session.accessExpired(end.addSecs(1)));
    QVERIFY(!session.accessExpired(end.addSecs(-10), 0));
    session.accessExpiresAt = {};
    QVERIFY(session.accessExpired(end.addSecs(-3600)));
}

void TestCliConfigStore::parseFingerprint_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QByteArray>("hex"); // empty: refused

    const QByteArray hex = "a7746075321bd79d5d1c120d12b11377c3084fd4984c8adb2ed65852d65338d5";
    QString pairs;
    for (int i = 0; i < hex.size(); i += 2)
        pairs += (i ? u":"_s : QString()) + QString::fromLatin1(hex.mid(i, 2)).toUpper();
    QTest::newRow("as shown") << u"SHA256:"_s + pairs << hex;
    QTest::newRow("lower prefix") << u"sha256:"_s + pairs.toLower() << hex;
    QTest::newRow("no prefix") << pairs << hex;
    QTest::newRow("plain hex") << QString::fromLatin1(hex) << hex;
    QTest::newRow("too short") << u"SHA256:AB:CD"_s << QByteArray();
    QTest::newRow("not hex") << u"SHA256:"_s + QString(64, u'g') << QByteArray();
    QTest::newRow("sha1 length") << QString(40, u'a') << QByteArray();
}

void TestCliConfigStore::parseFingerprint()
{
    QFETCH(QString, input);
    QFETCH(QByteArray, hex);
    const ddl::Result<QByteArray> parsed = CliContext::parseFingerprint(input);
    if (hex.isEmpty()) {
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().field, u"trust-fingerprint"_s);
        return;
    }
    QVERIFY(parsed.ok());
    QCOMPARE(*parsed, hex);
}

QTEST_GUILESS_MAIN(TestCliConfigStore)
#include "tst_cli_configstore.moc"
