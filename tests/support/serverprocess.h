#pragma once

#include <QProcess>
#include <QString>
#include <QUrl>
#include <QVariantMap>
#include <memory>

// The one way tests start the real ddl-server binary (from DDL_BIN_DIR): a process on 127.0.0.1
// over TLS with its own data dir, SQLite file and self-signed certificate, its output appended to
// <dataDir>.log. Worker, CLI, load and security tests run against it; ClusterHarness builds on it.
// Under DDL_TEST_DATABASE=postgresql (pgcluster.h) each data dir gets its own PostgreSQL database
// instead of the SQLite file, passed as --database to the server and its admin commands.
class ServerProcess
{
public:
    explicit ServerProcess(const QString &dataDir);
    // Another server on the same data dir and database (several instances): its own log file.
    ServerProcess(const QString &dataDir, const QString &logPath);
    ~ServerProcess();

    // Starts ddl-server on port (0: a free one) with extraArgs after --data-dir and --listen, and
    // waits until it listens. Returns what went wrong (with the server's log), or an empty string.
    // By default no worker is lost while a test stops at a breakpoint or on a slow machine.
    QString start(quint16 port = 0,
                  const QStringList &extraArgs = {QStringLiteral("--worker-timeout"),
                                                  QStringLiteral("600")});
    // Ends the process (SIGTERM, as an operator would) and waits for it.
    void stop();
    // SIGKILLs the process (no shutdown of any kind) and waits until it is gone.
    bool kill();
    bool running() const { return m_process && m_process->state() != QProcess::NotRunning; }

    QString dataDir() const { return m_dataDir; }
    // The --database URL of the data dir, empty for SQLite.
    QString databaseUrl() const { return databaseUrlOf(m_dataDir); }
    static QString databaseUrlOf(const QString &dataDir);
    // Servers (and admin commands) on dataDir use the PostgreSQL database of url.
    static void useDatabase(const QString &dataDir, const QString &url);
    QUrl url() const { return m_url; }
    quint16 port() const { return quint16(m_url.port()); }
    // The server's process id while it runs, else 0.
    qint64 processId() const { return m_process ? m_process->processId() : 0; }
    // The server's self-signed certificate, which clients trust as their CA.
    QString caFile() const { return m_dataDir + QStringLiteral("/tls/server.crt"); }
    QString log() const;
    QString logPath() const { return m_logPath; }

    // `ddl-server token create --data-dir DIR`: works whether a server runs on DIR or not.
    static QString createEnrollToken(const QString &dataDir);
    // Runs `ddl-server ARGS` (an admin command on a data dir) and waits for it; its stdout, or an
    // empty string with a warning when it failed.
    static QString runCommand(const QStringList &arguments,
                              int *exitCode = nullptr,
                              QString *errorOutput = nullptr);
    // Copies a data dir of a stopped server, as a backup would.
    static bool copyDataDir(const QString &from, const QString &to);
    static QString binary(const QString &name);

    // The server's own record of its workers (name, hostname, cpus, memory_mb, gpus, slots,
    // last_seen), read from its SQLite file through a read-only connection.
    QList<QVariantMap> workers() const;

private:
    QString m_dataDir;
    QString m_logPath;
    QUrl m_url;
    std::unique_ptr<QProcess> m_process;
};
