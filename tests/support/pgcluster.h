#pragma once

#include <QString>
#include <QTemporaryDir>

// A real PostgreSQL 15 cluster in a temporary folder, for the tests that run the server on
// PostgreSQL: initdb, then pg_ctl start with its unix socket in that folder and a free TCP port on
// 127.0.0.1 (password login there), stopped and removed again by the destructor. initdb refuses
// root, so as root (CI) the cluster belongs to nobody and its programs run through setpriv.
class PgCluster
{
public:
    PgCluster();
    ~PgCluster();
    PgCluster(const PgCluster &) = delete;
    PgCluster &operator=(const PgCluster &) = delete;

    // Makes and starts the cluster; what went wrong (with PostgreSQL's output), or empty.
    QString start();
    void stop();
    // A new, empty database; its URL for --database (TCP, with the password), or empty with a
    // warning when it could not be made.
    QString createDatabase(const QString &name);

    quint16 port() const { return m_port; }
    QString socketDir() const { return m_dir.path(); }
    QString password() const { return m_password; }
    static QString binDir();

private:
    QString run(const QString &program, const QStringList &arguments);

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    QString m_password;
    bool m_running = false;
};

// Whether this test run's servers use PostgreSQL: DDL_TEST_DATABASE=postgresql, as the
// *_postgresql registrations in CTest set it. Otherwise they use SQLite in their data dirs.
bool testsUsePostgres();
// For a test that opens a store: when testsUsePostgres(), a new database in the process's one
// cluster (started on first use, stopped when the application ends) and its URL; else empty,
// which means SQLite. Empty with a warning too when PostgreSQL cannot start: callers check
// missingTestDatabase().
QString testDatabaseUrl();
// Why a test that should run on PostgreSQL has no database (url is empty), or empty when all is
// well; what a test fails with rather than running on SQLite unnoticed.
QString missingTestDatabase(const QString &url);
