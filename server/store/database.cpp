#include "database.h"

#include "databaseurl.h"
#include "dialect.h"
#include "migrations.h"
#include "sql.h"

#include <QDir>
#include <QLoggingCategory>
#include <QSqlError>
#include <QStringList>
#include <QThreadStorage>

#include <atomic>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcStore, "ddl.server.store")

namespace ddl::server {

int Database::schemaVersion()
{
    return int(schemaMigrations().size());
}

Result<QSqlDatabase>
Database::open(const QString &dataDir, const QString &connectionName, const QString &databaseUrl)
{
    Result<QSqlDatabase> db = databaseUrl.isEmpty() ? openSqlite(dataDir, connectionName)
                                                    : connectPostgres(databaseUrl, connectionName);
    if (!db)
        return db;
    if (Status migrated = migrate(*db); !migrated)
        return migrated.error();
    return db;
}

Result<QSqlDatabase> Database::connectPostgres(const QString &databaseUrl,
                                               const QString &connectionName)
{
    Result<DatabaseUrl> url = DatabaseUrl::parse(databaseUrl);
    if (!url)
        return url.error();
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), connectionName);
    if (!db.isValid()) {
        return Error::make(ErrorCode::InvalidConfig,
                           QStringLiteral("ddl-server cannot reach PostgreSQL: Qt's QPSQL driver "
                                          "is missing; install libqt6sql6-psql"));
    }
    db.setHostName(url->host);
    db.setPort(url->port);
    db.setUserName(url->user);
    db.setPassword(url->password);
    db.setDatabaseName(url->name);
    db.setConnectOptions(url->connectOptions);
    if (!db.open()) {
        // libpq's messages name the host and user, never the password.
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot connect to the store %1: %2")
                .arg(DatabaseUrl::redacted(databaseUrl), db.lastError().text().simplified()));
    }
    if (Status configured = configure(db); !configured)
        return configured.error();
    return db;
}

Result<QSqlDatabase> Database::openSqlite(const QString &dataDir, const QString &connectionName)
{
    if (!QDir().mkpath(dataDir)) {
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot create the data dir %1; check its permissions").arg(dataDir));
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connectionName);
    db.setDatabaseName(QDir(dataDir).filePath(QStringLiteral("ddl.sqlite")));
    // A second process (ddl-server token create) may write while the server runs: wait for it.
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open()) {
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot open the store %1: %2")
                               .arg(db.databaseName(), db.lastError().text()));
    }
    // WAL lets readers and the one writer proceed together (it stays set in the file).
    if (Result<QSqlQuery> wal = runSql(db, u"PRAGMA journal_mode=WAL"_s); !wal)
        return wal.error();
    if (Status configured = configure(db); !configured)
        return configured.error();
    return db;
}

Status Database::configure(const QSqlDatabase &db)
{
    QStringList statements;
    if (dialectOf(db) == SqlDialect::Sqlite) {
        // NORMAL is durable across process crashes in WAL mode, FULL adds power-loss safety for
        // the commits that answer a client.
        statements << u"PRAGMA synchronous=FULL"_s << u"PRAGMA foreign_keys=ON"_s;
    } else {
        // "relation already exists, skipping" and the like are not worth a line in the log.
        statements << u"SET client_min_messages = warning"_s;
    }
    for (const QString &statement : std::as_const(statements)) {
        if (Result<QSqlQuery> query = runSql(db, statement); !query)
            return query.error();
    }
    return Ok{};
}

namespace {
// The connection a thread opened (forThisThread). QThreadStorage deletes it in its thread as the
// thread ends, before QThread::wait() returns (a thread_local's destructor runs later, when the
// pool that waited may already be gone).
struct ThreadConnection
{
    QString main; // the connection it was cloned from
    QString name;
    ~ThreadConnection()
    {
        QSqlDatabase::database(name, false).close();
        QSqlDatabase::removeDatabase(name);
    }
};
QThreadStorage<ThreadConnection *> threadConnection;
} // namespace

Result<QSqlDatabase> Database::forThisThread(const QString &mainConnection)
{
    if (threadConnection.hasLocalData()) {
        // Not opened again here (open = false): that would skip configure().
        const ThreadConnection *own = threadConnection.localData();
        if (QSqlDatabase db = QSqlDatabase::database(own->name, false);
            db.isOpen() && own->main == mainConnection)
            return db;
        threadConnection.setLocalData(nullptr); // deletes it, no handle left: opened anew below
    }
    static std::atomic<int> opened{0};
    const QString name = mainConnection + u"-thread-"_s + QString::number(++opened);
    // The QString overload: it may be called from a thread other than the main connection's.
    QSqlDatabase db = QSqlDatabase::cloneDatabase(mainConnection, name);
    const auto failed = [&](const QString &why) {
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(name);
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot open a second connection to the store: %1").arg(why));
    };
    if (!db.open())
        return failed(db.lastError().text().simplified());
    if (Status configured = configure(db); !configured)
        return failed(configured.error().message);
    threadConnection.setLocalData(new ThreadConnection{mainConnection, name});
    return db;
}

void Database::dropThisThread()
{
    threadConnection.setLocalData(nullptr);
}

Status Database::migrate(const QSqlDatabase &db)
{
    // Inside the write transaction: two servers starting at once on one PostgreSQL database take
    // turns, and the second finds the schema up to date.
    Transaction transaction(db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    const SqlDialect dialect = dialectOf(db);
    QStringList prologue{
        QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")};
    // SQLite's NOCASE (users' emails) as a PostgreSQL collation of the same name.
    if (dialect == SqlDialect::Postgres) {
        prologue << QStringLiteral("CREATE COLLATION IF NOT EXISTS nocase (provider = icu, "
                                   "locale = 'und-u-ks-level2', deterministic = false)");
    }
    for (const QString &statement : std::as_const(prologue)) {
        if (Result<QSqlQuery> query = runSql(db, statement); !query)
            return query.error();
    }
    Result<QSqlQuery> current =
        runSql(db, QStringLiteral("SELECT MAX(version) AS version FROM schema_version"));
    if (!current)
        return current.error();
    const int version = current->next() ? current->value(u"version"_s).toInt() : 0;
    const auto &migrations = schemaMigrations();
    if (version > int(migrations.size())) {
        return Error::make(ErrorCode::SchemaTooNew,
                           QStringLiteral("the store is at schema version %1 but this ddl-server "
                                          "knows only %2; run a newer ddl-server")
                               .arg(version)
                               .arg(migrations.size()));
    }
    for (int next = version; next < int(migrations.size()); ++next) {
        qCInfo(lcStore) << "migrating store to schema version" << next + 1;
        for (const QString &statement : migrations[next]) {
            if (Result<QSqlQuery> query = runSql(db, inDialect(statement, dialect)); !query)
                return query.error();
        }
        if (Result<QSqlQuery> query = runSql(db, QStringLiteral("INSERT INTO schema_version "
                                                                "VALUES (?)"),
                                             {next + 1});
            !query)
            return query.error();
    }
    return transaction.commit();
}

} // namespace ddl::server
