// The SQLite store: its migrations, its journal mode, and a store the running server must not
// touch. Every test opens a real ddl.sqlite in a temporary data dir through Database::open.
#include "store/database.h"
#include "store/migrations.h"
#include "store/sql.h"
#include "store/sqlliteral.h"
#include "store/writeturn.h"

#include <QFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

using namespace ddl;
using namespace ddl::server;

namespace {

const QString Connection = QStringLiteral("tst_store");
const QString RawConnection = QStringLiteral("tst_store_raw");

// Drops a named connection, closing it first; copies of the handle must be gone by then.
void dropConnection(const QString &name)
{
    {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

// The single value of a one-row, one-column query, or an invalid QVariant.
QVariant scalar(const QSqlDatabase &db, const QString &sql)
{
    Result<QSqlQuery> query = runSql(db, sql);
    if (!query || !query->next())
        return {};
    return query->value(0);
}

} // namespace

class tst_Store : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void freshStoreIsAtCurrentSchema();
    void freshStoreHasTables_data();
    void freshStoreHasTables();
    void reopeningKeepsDataWithoutMigrating();
    void walModeIsPersistent();
    void foreignKeysAreEnforced();
    void newerSchemaIsRefused();
    void unusableDataDirIsReported();
    void threadConnectionWritesTheSameStore();
    void writersTakeTurnsInTheOrderTheyCame();
    void literalsRefuseWhatCouldLeaveTheirQuotes();

private:
    // Opens the store of m_dir through Database::open; fails the test when it cannot.
    QSqlDatabase openStore();

    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_Store::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void tst_Store::cleanup()
{
    dropConnection(Connection);
    dropConnection(RawConnection);
    m_dir.reset();
}

QSqlDatabase tst_Store::openStore()
{
    Result<QSqlDatabase> db = Database::open(m_dir->path(), Connection);
    if (!db) {
        qWarning("Database::open failed: %s", qUtf8Printable(db.error().message));
        return {};
    }
    return *db;
}

void tst_Store::freshStoreIsAtCurrentSchema()
{
    QVERIFY(Database::schemaVersion() >= 1);
    QCOMPARE(Database::schemaVersion(), int(schemaMigrations().size()));
    QSqlDatabase db = openStore();
    QVERIFY(db.isOpen());
    QVERIFY(QFile::exists(m_dir->filePath(QStringLiteral("ddl.sqlite"))));
    QCOMPARE(scalar(db, QStringLiteral("SELECT MAX(version) FROM schema_version")).toInt(),
             Database::schemaVersion());
    // One row per migration applied, numbered from 1.
    QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM schema_version")).toInt(),
             Database::schemaVersion());
    QCOMPARE(scalar(db, QStringLiteral("SELECT MIN(version) FROM schema_version")).toInt(), 1);
}

void tst_Store::freshStoreHasTables_data()
{
    QTest::addColumn<QString>("table");
    for (const char *table : {"users",
                              "sessions",
                              "enroll_tokens",
                              "workers",
                              "uploads",
                              "blobs",
                              "blob_refs",
                              "jobs",
                              "tasks",
                              "artifacts"})
        QTest::newRow(table) << QString::fromLatin1(table);
}

void tst_Store::freshStoreHasTables()
{
    QFETCH(QString, table);
    QSqlDatabase db = openStore();
    QVERIFY(db.isOpen());
    Result<QSqlQuery> query = runSql(db,
                                     QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE "
                                                    "type = 'table' AND name = ?"),
                                     {table});
    QVERIFY(query);
    QVERIFY(query->next());
    QCOMPARE(query->value(0).toInt(), 1);
}

void tst_Store::reopeningKeepsDataWithoutMigrating()
{
    {
        QSqlDatabase db = openStore();
        QVERIFY(db.isOpen());
        QVERIFY(runSql(db,
                       QStringLiteral("INSERT INTO users (email, password_hash, created_at) "
                                      "VALUES (?, ?, ?)"),
                       {QStringLiteral("ada@example.org"), QStringLiteral("$argon2id$x"), 1}));
    }
    dropConnection(Connection);

    QSqlDatabase db = openStore();
    QVERIFY2(db.isOpen(), "reopening a store at the current schema must succeed");
    QCOMPARE(scalar(db, QStringLiteral("SELECT email FROM users")).toString(),
             QStringLiteral("ada@example.org"));
    // Re-running the migrations would have added rows (or failed on CREATE TABLE).
    QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM schema_version")).toInt(),
             Database::schemaVersion());
}

void tst_Store::walModeIsPersistent()
{
    {
        QSqlDatabase db = openStore();
        QVERIFY(db.isOpen());
        QCOMPARE(scalar(db, QStringLiteral("PRAGMA journal_mode")).toString(),
                 QStringLiteral("wal"));
    }
    dropConnection(Connection);

    // A second process (ddl-server token create) opens the file without our pragmas: the mode
    // is a property of the file, and it must read back as WAL there too.
    QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), RawConnection);
    raw.setDatabaseName(m_dir->filePath(QStringLiteral("ddl.sqlite")));
    QVERIFY2(raw.open(), qPrintable(raw.lastError().text()));
    QCOMPARE(scalar(raw, QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
}

void tst_Store::foreignKeysAreEnforced()
{
    QSqlDatabase db = openStore();
    QVERIFY(db.isOpen());
    // A session of a user that does not exist must not be stored.
    Result<QSqlQuery> insert = runSql(
        db,
        QStringLiteral("INSERT INTO sessions (user_id, access_hash, access_expires, refresh_hash, "
                       "refresh_expires, created_at) VALUES (4242, 'a', 1, 'r', 1, 1)"));
    QVERIFY(!insert);
    QCOMPARE(insert.error().code, QStringLiteral("internal"));
    QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM sessions")).toInt(), 0);
}

void tst_Store::newerSchemaIsRefused()
{
    const int newer = Database::schemaVersion() + 1;
    {
        QSqlDatabase db = openStore();
        QVERIFY(db.isOpen());
        QVERIFY(runSql(db, QStringLiteral("INSERT INTO schema_version VALUES (?)"), {newer}));
    }
    dropConnection(Connection);

    Result<QSqlDatabase> refused = Database::open(m_dir->path(), Connection);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("schema_too_new"));
    // The message names both versions and what to do.
    const QString message = refused.error().message;
    QVERIFY2(message.contains(QString::number(newer)), qPrintable(message));
    QVERIFY2(message.contains(QString::number(Database::schemaVersion())), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("newer ddl-server")), qPrintable(message));
    dropConnection(Connection);

    // The refused store was left as it was.
    QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), RawConnection);
    raw.setDatabaseName(m_dir->filePath(QStringLiteral("ddl.sqlite")));
    QVERIFY(raw.open());
    QCOMPARE(scalar(raw, QStringLiteral("SELECT MAX(version) FROM schema_version")).toInt(), newer);
    QCOMPARE(scalar(raw, QStringLiteral("SELECT COUNT(*) FROM schema_version")).toInt(),
             Database::schemaVersion() + 1);
}

void tst_Store::unusableDataDirIsReported()
{
    // A data dir below a plain file cannot be created, whoever runs the test.
    const QString file = m_dir->filePath(QStringLiteral("not-a-dir"));
    {
        QFile blocker(file);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
    }
    const QString dataDir = file + QStringLiteral("/data");
    Result<QSqlDatabase> db = Database::open(dataDir, Connection);
    QVERIFY(!db);
    QCOMPARE(db.error().code, QStringLiteral("io_error"));
    QVERIFY2(db.error().message.contains(dataDir), qPrintable(db.error().message));
}

// A batch of small blobs is recorded on a pool thread with a connection of its own: the same
// file, the same settings (foreign keys, full sync), gone when its thread ends.
void tst_Store::threadConnectionWritesTheSameStore()
{
    QSqlDatabase db = openStore();
    QVERIFY(db.isOpen());
    QString name;
    QString failure;
    int foreignKeys = -1;
    int synchronous = -1;
    std::thread([&] {
        Result<QSqlDatabase> own = Database::forThisThread(Connection);
        if (!own) {
            failure = own.error().message;
            return;
        }
        name = own->connectionName();
        foreignKeys = scalar(*own, QStringLiteral("PRAGMA foreign_keys")).toInt();
        synchronous = scalar(*own, QStringLiteral("PRAGMA synchronous")).toInt();
        // The same connection again on a second call.
        Result<QSqlDatabase> again = Database::forThisThread(Connection);
        if (!again || again->connectionName() != name)
            failure = QStringLiteral("a second call opened another connection");
        {
            Transaction transaction(*own);
            if (Status begun = transaction.begin(); !begun)
                failure = begun.error().message;
            else if (!runSql(*own,
                             QStringLiteral("INSERT INTO blobs (sha256, size, created_at) "
                                            "VALUES ('%1', 3, 1)")
                                 .arg(QString(64, u'a'))))
                failure = QStringLiteral("insert failed");
            else if (Status committed = transaction.commit(); !committed)
                failure = committed.error().message;
        }
        // After a failure the thread drops it, and the next call opens a fresh one.
        own = Result<QSqlDatabase>(QSqlDatabase());
        again = Result<QSqlDatabase>(QSqlDatabase());
        Database::dropThisThread();
        if (QSqlDatabase::contains(name))
            failure = QStringLiteral("the dropped connection is still there");
        Result<QSqlDatabase> fresh = Database::forThisThread(Connection);
        if (!fresh || fresh->connectionName() == name || !fresh->isOpen())
            failure = QStringLiteral("no fresh connection after the drop");
        else
            name = fresh->connectionName();
    }).join();
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QVERIFY(name != Connection);
    QCOMPARE(foreignKeys, 1);
    QCOMPARE(synchronous, 2); // FULL
    QCOMPARE(scalar(db, QStringLiteral("SELECT size FROM blobs")).toInt(), 3);
    QVERIFY(!QSqlDatabase::contains(name));
}

// A batch thread holds the write lock; a second batch thread, then the event loop (a write
// outside any transaction), come to write. They get in in the order they came: the event loop
// waits for the one writer ahead of it, not in SQLite's busy handler, whose sleeps (up to 100 ms)
// let whoever polls next in first.
void tst_Store::writersTakeTurnsInTheOrderTheyCame()
{
    QSqlDatabase db = openStore();
    QVERIFY(db.isOpen());
    QVERIFY(runSql(db, QStringLiteral("CREATE TABLE arrivals (n INTEGER PRIMARY KEY, who TEXT)")));
    QString failure;
    const auto batch = [&failure](const QString &who, std::promise<void> *holding, int holdMs) {
        Result<QSqlDatabase> own = Database::forThisThread(Connection);
        std::optional<Transaction> transaction;
        if (own)
            transaction.emplace(*own);
        const Status begun = transaction ? transaction->begin() : Status(own.error());
        if (holding)
            holding->set_value(); // begun or not: the test goes on, and fails below
        if (!begun) {
            failure = begun.error().message;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(holdMs));
        (void)runSql(*own, QStringLiteral("INSERT INTO arrivals (who) VALUES (?)"), {who});
        (void)transaction->commit();
    };
    std::promise<void> firstHolds;
    std::thread first(batch, QStringLiteral("first batch"), &firstHolds, 300);
    firstHolds.get_future().wait();
    std::thread second(batch, QStringLiteral("second batch"), nullptr, 0);
    // Once the second waits for its turn, the event loop comes.
    for (int i = 0; i < 200 && WriteTurn::waiting() < 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int waitingBefore = WriteTurn::waiting();
    QVERIFY(runSql(db, QStringLiteral("INSERT INTO arrivals (who) VALUES ('event loop')")));
    first.join();
    second.join();
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QCOMPARE(waitingBefore, 1);
    QStringList order;
    Result<QSqlQuery> rows = runSql(db, QStringLiteral("SELECT who FROM arrivals ORDER BY n"));
    QVERIFY(rows);
    while (rows->next())
        order << rows->value(0).toString();
    QCOMPARE(order,
             QStringList({QStringLiteral("first batch"),
                          QStringLiteral("second batch"),
                          QStringLiteral("event loop")}));
}

void tst_Store::literalsRefuseWhatCouldLeaveTheirQuotes()
{
    const QString digest(64, u'f');
    QCOMPARE(sqlliteral::digest(digest), u'\'' + digest + u'\'');
    QCOMPARE(sqlliteral::digestList({digest, digest}),
             u'\'' + digest + u"', '"_qs + digest + u'\'');
    QCOMPARE(sqlliteral::plainText(u"worker:12"_qs), u"'worker:12'"_qs);
    for (const QString &bad : QStringList{u"x' OR '1'='1"_qs,
                                          QString(63, u'f') + u'\'',
                                          QString(64, u'F'),
                                          QString(65, u'f'),
                                          QString()}) {
        QVERIFY(!sqlliteral::digest(bad));
        QVERIFY(!sqlliteral::digestList({digest, bad}));
    }
    for (const QString &bad :
         QStringList{u"user:1'--"_qs, u"a b"_qs, u"a\\b"_qs, u"é"_qs, QString(201, u'a')})
        QVERIFY(!sqlliteral::plainText(bad));
}

QTEST_GUILESS_MAIN(tst_Store)
#include "tst_store.moc"
