#include "pgcluster.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QUrl>
#include <QUuid>
#include <memory>
#include <unistd.h>

using namespace Qt::StringLiterals;

// The uid and gid of nobody and nogroup in Debian's base-passwd, there in every root.
static constexpr uid_t NobodyId = 65534;

PgCluster::PgCluster()
    // Awkward on purpose: the URL must carry it percent-encoded.
    : m_password(u"p@ss:w/rd-"_s + QUuid::createUuid().toString(QUuid::Id128).left(12))
{
}

PgCluster::~PgCluster()
{
    stop();
}

QString PgCluster::binDir()
{
    return u"/usr/lib/postgresql/15/bin"_s;
}

QString PgCluster::run(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    const QString path = QDir(binDir()).filePath(program);
    // initdb looks at the current folder, which nobody may not be allowed to enter.
    process.setWorkingDirectory(m_dir.path());
    if (geteuid() == 0) {
        process.start(u"setpriv"_s,
                      QStringList{u"--reuid=%1"_s.arg(NobodyId),
                                  u"--regid=%1"_s.arg(NobodyId),
                                  u"--clear-groups"_s,
                                  u"--"_s,
                                  path} +
                          arguments);
    } else {
        process.start(path, arguments);
    }
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished(2000);
        return u"%1 did not finish: %2"_s.arg(program, QString::fromUtf8(process.readAll()));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return u"%1 failed: %2"_s.arg(program, QString::fromUtf8(process.readAll()));
    return {};
}

QString PgCluster::start()
{
    if (!QFile::exists(QDir(binDir()).filePath(u"initdb"_s)))
        return u"PostgreSQL 15 is not installed (%1/initdb); install postgresql-15"_s.arg(binDir());
    if (!m_dir.isValid())
        return u"cannot make a temporary folder for the cluster"_s;
    const QString passwordFile = m_dir.filePath(u"password"_s);
    QFile file(passwordFile);
    if (!file.open(QIODevice::WriteOnly) || file.write(m_password.toUtf8() + '\n') <= 0)
        return u"cannot write %1"_s.arg(passwordFile);
    file.close();
    if (geteuid() == 0) {
        for (const QString &path : {m_dir.path(), passwordFile}) {
            if (::chown(QFile::encodeName(path).constData(), NobodyId, NobodyId) != 0)
                return u"cannot give %1 to nobody"_s.arg(path);
        }
    }
    const QString data = m_dir.filePath(u"data"_s);
    if (QString failed = run(u"initdb"_s,
                             {u"-D"_s,
                              data,
                              u"-U"_s,
                              u"ddl"_s,
                              u"--pwfile"_s,
                              passwordFile,
                              u"--auth-local=trust"_s,
                              u"--auth-host=scram-sha-256"_s,
                              u"--encoding=UTF8"_s,
                              u"--locale=C.UTF-8"_s,
                              u"--no-sync"_s});
        !failed.isEmpty())
        return failed;
    // A free port, asked of the kernel; PostgreSQL binds it a moment later, so another test
    // may take it first: then once more with another.
    QString failed;
    for (int attempt = 0; attempt < 3; ++attempt) {
        QTcpServer probe;
        if (!probe.listen(QHostAddress::LocalHost, 0))
            return u"no free port on 127.0.0.1"_s;
        m_port = probe.serverPort();
        probe.close();
        const QString options = u"-k %1 -p %2 -c listen_addresses=127.0.0.1 -c fsync=off "
                                "-c max_connections=200"_s.arg(m_dir.path())
                                    .arg(m_port);
        failed = run(u"pg_ctl"_s,
                     {u"-D"_s,
                      data,
                      u"-l"_s,
                      m_dir.filePath(u"server.log"_s),
                      u"-w"_s,
                      u"-o"_s,
                      options,
                      u"start"_s});
        if (failed.isEmpty())
            break;
    }
    if (!failed.isEmpty()) {
        QFile log(m_dir.filePath(u"server.log"_s));
        return failed +
               (log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()) : QString());
    }
    m_running = true;
    return {};
}

void PgCluster::stop()
{
    if (!m_running)
        return;
    m_running = false;
    const QString failed =
        run(u"pg_ctl"_s,
            {u"-D"_s, m_dir.filePath(u"data"_s), u"-m"_s, u"immediate"_s, u"-w"_s, u"stop"_s});
    if (!failed.isEmpty())
        qWarning("%s", qPrintable(failed));
}

QString PgCluster::createDatabase(const QString &name)
{
    const QString connection = u"pgcluster-admin-"_s + QUuid::createUuid().toString();
    bool created = false;
    {
        QSqlDatabase admin = QSqlDatabase::addDatabase(u"QPSQL"_s, connection);
        admin.setHostName(socketDir());
        admin.setPort(m_port);
        admin.setUserName(u"ddl"_s);
        admin.setDatabaseName(u"postgres"_s);
        if (!admin.open()) {
            qWarning("cannot connect to the test cluster: %s",
                     qPrintable(admin.lastError().text()));
        } else {
            QSqlQuery query(admin);
            created = query.exec(u"CREATE DATABASE \"%1\""_s.arg(name));
            if (!created)
                qWarning("CREATE DATABASE %s: %s",
                         qPrintable(name),
                         qPrintable(query.lastError().text()));
        }
        admin.close();
    }
    QSqlDatabase::removeDatabase(connection);
    if (!created)
        return {};
    QUrl url;
    url.setScheme(u"postgresql"_s);
    url.setUserName(u"ddl"_s);
    url.setPassword(m_password);
    url.setHost(u"127.0.0.1"_s);
    url.setPort(m_port);
    url.setPath(u"/"_s + name);
    return url.toString(QUrl::FullyEncoded);
}

bool testsUsePostgres()
{
    return qEnvironmentVariable("DDL_TEST_DATABASE") == QLatin1String("postgresql");
}

QString missingTestDatabase(const QString &url)
{
    if (!testsUsePostgres() || !url.isEmpty())
        return {};
    return u"DDL_TEST_DATABASE=postgresql, but no PostgreSQL database could be made (see the "
           "warning before)"_s;
}

static std::unique_ptr<PgCluster> &sharedCluster()
{
    static std::unique_ptr<PgCluster> cluster;
    return cluster;
}

QString testDatabaseUrl()
{
    if (!testsUsePostgres())
        return {};
    std::unique_ptr<PgCluster> &cluster = sharedCluster();
    if (!cluster) {
        cluster = std::make_unique<PgCluster>();
        if (const QString failed = cluster->start(); !failed.isEmpty()) {
            cluster.reset();
            qWarning("cannot start PostgreSQL: %s", qPrintable(failed));
            return {};
        }
        // Before the application's end takes QProcess with it.
        qAddPostRoutine([] { sharedCluster().reset(); });
    }
    static int serial = 0;
    return cluster->createDatabase(u"ddl_test_%1"_s.arg(++serial));
}
