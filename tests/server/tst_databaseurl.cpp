// What --database accepts (DatabaseUrl) and how the one migration list reads on PostgreSQL
// (inDialect): the password decoded but never shown, a clear error for what is wrong, and a
// portable statement left as it is.
#include "store/databaseurl.h"
#include "store/dialect.h"
#include "store/migrations.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::server;

static const QString Keepalives =
    u";keepalives_idle=5;keepalives_interval=2;keepalives_count=3;tcp_user_timeout=15000"_s;

class tst_DatabaseUrl : public QObject
{
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void refuses_data();
    void refuses();
    void redactedHidesThePassword();
    void sqliteStatementsAreUnchanged();
    void postgresMapsOnlyTheTypes_data();
    void postgresMapsOnlyTheTypes();
    void everyMigrationMapsToPostgresTypes();
};

void tst_DatabaseUrl::parses_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("options");
    QTest::newRow("tcp") << u"postgresql://ddl:secret@db.example.org:6543/ddl"_s
                         << u"db.example.org"_s << 6543 << u"ddl"_s << u"secret"_s << u"ddl"_s
                         << u"connect_timeout=10"_s + Keepalives;
    QTest::newRow("encoded password, default port")
        << u"postgres://ddl:p%40ss%3Aw%2Frd@127.0.0.1/jobs"_s << u"127.0.0.1"_s << 5432 << u"ddl"_s
        << u"p@ss:w/rd"_s << u"jobs"_s << u"connect_timeout=10"_s + Keepalives;
    QTest::newRow("unix socket") << u"postgresql://ddl@/ddl?host=/run/postgresql&port=5433"_s
                                 << u"/run/postgresql"_s << 5433 << u"ddl"_s << QString()
                                 << u"ddl"_s << u"connect_timeout=10"_s + Keepalives;
    QTest::newRow("tls options") << u"postgresql://u:p@h/d?sslmode=verify-full&connect_timeout=3"_s
                                 << u"h"_s << 5432 << u"u"_s << u"p"_s << u"d"_s
                                 << u"sslmode=verify-full;connect_timeout=3"_s + Keepalives;
}

void tst_DatabaseUrl::parses()
{
    QFETCH(QString, url);
    const ddl::Result<DatabaseUrl> parsed = DatabaseUrl::parse(url);
    QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error().message));
    QTEST(parsed->host, "host");
    QTEST(parsed->port, "port");
    QTEST(parsed->user, "user");
    QTEST(parsed->password, "password");
    QTEST(parsed->name, "name");
    QTEST(parsed->connectOptions, "options");
}

void tst_DatabaseUrl::refuses_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("says");
    QTest::newRow("other scheme") << u"mysql://u:hunter22@h/d"_s << u"only postgresql://"_s;
    QTest::newRow("no database") << u"postgresql://u:hunter22@h"_s << u"database name is missing"_s;
    QTest::newRow("bad port") << u"postgresql://u:hunter22@/d?host=/tmp&port=x"_s
                              << u"port must be a number"_s;
    QTest::newRow("unknown item") << u"postgresql://u:hunter22@h/d?options=-c%20x"_s
                                  << u"unknown parameter \"options\""_s;
}

void tst_DatabaseUrl::refuses()
{
    QFETCH(QString, url);
    QFETCH(QString, says);
    const ddl::Result<DatabaseUrl> parsed = DatabaseUrl::parse(url);
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().message.contains(says), qPrintable(parsed.error().message));
    QVERIFY2(parsed.error().message.contains(u"postgresql://USER:PASSWORD@HOST:PORT/DBNAME"_s),
             qPrintable(parsed.error().message));
    QVERIFY2(!parsed.error().message.contains(u"hunter22"_s), qPrintable(parsed.error().message));
}

void tst_DatabaseUrl::redactedHidesThePassword()
{
    QCOMPARE(DatabaseUrl::redacted(u"postgresql://ddl:p%40ss@db:5432/ddl"_s),
             u"postgresql://ddl:***@db:5432/ddl"_s);
    QCOMPARE(DatabaseUrl::redacted(u"postgresql://ddl@/ddl?host=/run/postgresql"_s),
             u"postgresql://ddl@/ddl?host=/run/postgresql"_s);
    // Qt finds this one invalid (port out of range) and would quote it whole in its error.
    const auto invalid = DatabaseUrl::parse(u"postgresql://ddl:secret42@db:99999/ddl"_s);
    QVERIFY(!invalid);
    QVERIFY2(!invalid.error().message.contains(u"secret42"_s), qPrintable(invalid.error().message));
    QVERIFY2(invalid.error().message.contains(u"postgresql://ddl:***@db:99999/ddl"_s),
             qPrintable(invalid.error().message));
}

void tst_DatabaseUrl::sqliteStatementsAreUnchanged()
{
    for (const QStringList &migration : schemaMigrations()) {
        for (const QString &statement : migration)
            QCOMPARE(inDialect(statement, SqlDialect::Sqlite), statement);
    }
}

void tst_DatabaseUrl::postgresMapsOnlyTheTypes_data()
{
    QTest::addColumn<QString>("statement");
    QTest::addColumn<QString>("postgres");
    QTest::newRow("portable") << u"CREATE TABLE samples (worker_id BIGINT NOT NULL, at BIGINT "
                                 "NOT NULL, gpu REAL NOT NULL, note TEXT)"_s
                              << u"CREATE TABLE samples (worker_id BIGINT NOT NULL, at BIGINT "
                                 "NOT NULL, gpu REAL NOT NULL, note TEXT)"_s;
    QTest::newRow("index") << u"CREATE INDEX samples_at ON samples (worker_id, at)"_s
                           << u"CREATE INDEX samples_at ON samples (worker_id, at)"_s;
    QTest::newRow("rowid key and times")
        << u"CREATE TABLE t (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, data BLOB)"_s
        << u"CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, at BIGINT "
           "NOT NULL, data BYTEA)"_s;
    QTest::newRow("autoincrement")
        << u"CREATE TABLE s (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER)"_s
        << u"CREATE TABLE s (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, at BIGINT)"_s;
    QTest::newRow("reserved word")
        << u"CREATE TABLE u (offset INTEGER NOT NULL, offsets TEXT)"_s
        << u"CREATE TABLE u (\"offset\" BIGINT NOT NULL, offsets TEXT)"_s;
    QTest::newRow("words inside names") << u"ALTER TABLE x ADD COLUMN integers_seen INTEGER"_s
                                        << u"ALTER TABLE x ADD COLUMN integers_seen BIGINT"_s;
}

void tst_DatabaseUrl::postgresMapsOnlyTheTypes()
{
    QFETCH(QString, statement);
    QTEST(inDialect(statement, SqlDialect::Postgres), "postgres");
}

void tst_DatabaseUrl::everyMigrationMapsToPostgresTypes()
{
    // What PostgreSQL would refuse or misread: SQLite's own types and the unquoted reserved word.
    for (const QStringList &migration : schemaMigrations()) {
        for (const QString &statement : migration) {
            const QString mapped = inDialect(statement, SqlDialect::Postgres);
            for (const QString &word : {u" INTEGER"_s, u" BLOB"_s, u" offset "_s}) {
                QVERIFY2(!mapped.contains(word), qPrintable(mapped));
            }
        }
    }
}

QTEST_GUILESS_MAIN(tst_DatabaseUrl)
#include "tst_databaseurl.moc"
