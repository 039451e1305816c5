#include "api/serveraddress.h"

#include <QTest>

using namespace Qt::Literals::StringLiterals;

// What ddlcli and ddl-desktop keep a server's settings, pin and tokens under.
class TestServerAddress : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
};

void TestServerAddress::parse_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("key"); // empty: refused

    QTest::newRow("full") << u"https://127.0.0.1:8443"_s << u"https://127.0.0.1:8443"_s;
    QTest::newRow("trailing slash") << u"https://127.0.0.1:8443/"_s << u"https://127.0.0.1:8443"_s;
    QTest::newRow("path dropped") << u"https://h:1/v1/"_s << u"https://h:1"_s;
    QTest::newRow("no scheme") << u"ddl.example.org:9000"_s << u"https://ddl.example.org:9000"_s;
    QTest::newRow("default port") << u"https://ddl.example.org"_s
                                  << u"https://ddl.example.org:443"_s;
    QTest::newRow("upper case host")
        << u"HTTPS://DDL.Example.ORG:8443"_s << u"https://ddl.example.org:8443"_s;
    QTest::newRow("spaces") << u"  https://h:2  "_s << u"https://h:2"_s;
    QTest::newRow("ipv6") << u"https://[::1]:8443"_s << u"https://[::1]:8443"_s;
    QTest::newRow("http refused") << u"http://h:1"_s << QString();
    QTest::newRow("ftp refused") << u"ftp://h:1"_s << QString();
    QTest::newRow("empty host") << u"https://:8443"_s << QString();
    QTest::newRow("nothing") << u"  "_s << QString();
}

void TestServerAddress::parse()
{
    QFETCH(QString, input);
    QFETCH(QString, key);
    const ddl::Result<QUrl> url = ddl::ServerAddress::parse(input);
    if (key.isEmpty()) {
        QVERIFY(!url.ok());
        QCOMPARE(url.error().field, u"server"_s);
        QVERIFY(url.error().message.contains(input.trimmed()));
        QVERIFY(url.error().message.contains(u"https://"_s));
        return;
    }
    QVERIFY2(url.ok(), qPrintable(url.ok() ? QString() : url.error().message));
    QCOMPARE(ddl::ServerAddress::key(*url), key);
}

QTEST_GUILESS_MAIN(TestServerAddress)
#include "tst_serveraddress.moc"
