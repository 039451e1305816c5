#include "serverprocess.h"

#include "pgcluster.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QThread>
#include <QUuid>

using namespace Qt::StringLiterals;

ServerProcess::ServerProcess(const QString &dataDir)
    : ServerProcess(dataDir, dataDir + u".log"_s)
{
}

// The databases of the data dirs of this test process, made on first use.
static QHash<QString, QString> &databaseUrls()
{
    static QHash<QString, QString> urls;
    return urls;
}

ServerProcess::ServerProcess(const QString &dataDir, const QString &logPath)
    : m_dataDir(dataDir)
    , m_logPath(logPath)
{
    if (testsUsePostgres() && !databaseUrls().contains(QDir::cleanPath(dataDir)))
        databaseUrls().insert(QDir::cleanPath(dataDir), testDatabaseUrl());
}

QString ServerProcess::databaseUrlOf(const QString &dataDir)
{
    return databaseUrls().value(QDir::cleanPath(dataDir));
}

void ServerProcess::useDatabase(const QString &dataDir, const QString &url)
{
    databaseUrls().insert(QDir::cleanPath(dataDir), url);
}

// --database for the data dir that arguments name with --data-dir, if it has one.
static QStringList withDatabase(const QStringList &arguments)
{
    const qsizetype at = arguments.indexOf(u"--data-dir"_s);
    if (at < 0 || at + 1 >= arguments.size())
        return arguments;
    const QString url = ServerProcess::databaseUrlOf(arguments.at(at + 1));
    return url.isEmpty() ? arguments : arguments + QStringList{u"--database"_s, url};
}

ServerProcess::~ServerProcess()
{
    stop();
}

QString ServerProcess::binary(const QString &name)
{
    return QDir(qEnvironmentVariable("DDL_BIN_DIR")).filePath(name);
}

QString ServerProcess::log() const
{
    QFile file(m_logPath);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

QString ServerProcess::start(quint16 port, const QStringList &extraArgs)
{
    stop();
    if (const QString missing = missingTestDatabase(databaseUrl()); !missing.isEmpty())
        return missing;
    const QString program = binary(u"ddl-server"_s);
    if (!QFileInfo(program).isExecutable())
        return u"%1 is not built (DDL_BIN_DIR=%2)"_s.arg(program,
                                                         qEnvironmentVariable("DDL_BIN_DIR"));
    const qsizetype logStart = log().size();
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_logPath, QIODevice::Append);
    m_process->start(program,
                     withDatabase(QStringList{
                         u"--data-dir"_s, m_dataDir, u"--listen"_s, u"127.0.0.1:%1"_s.arg(port)}) +
                         extraArgs);
    if (!m_process->waitForStarted(5000))
        return u"cannot start %1: %2"_s.arg(program, m_process->errorString());
    static const QRegularExpression listening(u"listening on (https://\\S+)"_s);
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15000) {
        const QRegularExpressionMatch match = listening.match(log().mid(logStart));
        if (match.hasMatch()) {
            m_url = QUrl(match.captured(1));
            return {};
        }
        if (m_process->state() == QProcess::NotRunning)
            break;
        QThread::msleep(20);
    }
    m_url.clear();
    return u"ddl-server did not start listening:\n"_s + log().mid(logStart);
}

void ServerProcess::stop()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }
    m_process.reset();
}

bool ServerProcess::kill()
{
    if (!running())
        return false;
    m_process->kill();
    return m_process->waitForFinished(5000);
}

QString ServerProcess::runCommand(const QStringList &arguments, int *exitCode, QString *errorOutput)
{
    QProcess command;
    command.start(binary(u"ddl-server"_s), withDatabase(arguments));
    const bool finished = command.waitForFinished(15000);
    if (!finished) {
        command.kill();
        command.waitForFinished(2000);
    }
    const int code =
        finished && command.exitStatus() == QProcess::NormalExit ? command.exitCode() : -1;
    const QString errors = finished ? QString::fromUtf8(command.readAllStandardError())
                                    : u"ddl-server %1 timed out"_s.arg(arguments.join(u' '));
    if (exitCode)
        *exitCode = code;
    if (errorOutput)
        *errorOutput = errors;
    if (code != 0) {
        qWarning("ddl-server %s failed: %s", qPrintable(arguments.join(u' ')), qPrintable(errors));
        return {};
    }
    return QString::fromUtf8(command.readAllStandardOutput());
}

QString ServerProcess::createEnrollToken(const QString &dataDir)
{
    return runCommand({u"token"_s, u"create"_s, u"--data-dir"_s, dataDir}).trimmed();
}

bool ServerProcess::copyDataDir(const QString &from, const QString &to)
{
    if (!QDir().mkpath(to))
        return false;
    const QDir source(from);
    for (const QFileInfo &entry : source.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot)) {
        const QString target = QDir(to).filePath(entry.fileName());
        if (entry.isDir() ? !copyDataDir(entry.filePath(), target)
                          : !QFile::copy(entry.filePath(), target)) {
            return false;
        }
    }
    return true;
}

QList<QVariantMap> ServerProcess::workers() const
{
    QList<QVariantMap> rows;
    const QString connection = QUuid::createUuid().toString();
    {
        const QUrl postgres(databaseUrl());
        QSqlDatabase db =
            QSqlDatabase::addDatabase(postgres.isEmpty() ? u"QSQLITE"_s : u"QPSQL"_s, connection);
        if (postgres.isEmpty()) {
            db.setDatabaseName(m_dataDir + u"/ddl.sqlite"_s);
            db.setConnectOptions(u"QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"_s);
        } else {
            db.setHostName(postgres.host());
            db.setPort(postgres.port());
            db.setUserName(postgres.userName());
            db.setPassword(postgres.password(QUrl::FullyDecoded));
            db.setDatabaseName(postgres.path().mid(1));
        }
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(u"SELECT id, name, hostname, cpus, memory_mb, gpus, slots, last_seen "
                           u"FROM workers ORDER BY id"_s)) {
                while (query.next()) {
                    QVariantMap row;
                    const QSqlRecord record = query.record();
                    for (int i = 0; i < record.count(); ++i)
                        row.insert(record.fieldName(i), query.value(i));
                    rows << row;
                }
            } else {
                qWarning("cannot read the workers of %s", qPrintable(db.databaseName()));
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return rows;
}
