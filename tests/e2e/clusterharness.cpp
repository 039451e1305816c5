#include "clusterharness.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QThread>
#include <QUrl>

QString ClusterHarness::binary(const QString &name)
{
    return QDir(qEnvironmentVariable("DDL_BIN_DIR")).filePath(name);
}

ClusterHarness::ClusterHarness() = default;

ClusterHarness::~ClusterHarness()
{
    for (const auto &worker : m_namedWorkers) {
        if (worker->state() != QProcess::NotRunning)
            worker->terminate();
    }
    for (const auto &worker : m_namedWorkers) {
        if (worker->state() != QProcess::NotRunning && !worker->waitForFinished(5000))
            worker->kill();
        worker->waitForFinished(2000);
    }
    for (auto *process : {m_worker.get(), m_server.get()}) {
        if (process && process->state() != QProcess::NotRunning) {
            process->terminate();
            if (!process->waitForFinished(5000))
                process->kill();
            process->waitForFinished(2000);
        }
    }
}

QString ClusterHarness::path(const QString &relative) const
{
    return m_dir.filePath(relative);
}

QString ClusterHarness::caCert() const
{
    return path(QStringLiteral("server/tls/server.crt"));
}

static QString readAll(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString ClusterHarness::serverLog() const
{
    return readAll(path(QStringLiteral("server.log")));
}

QString ClusterHarness::workerLog() const
{
    return readAll(path(QStringLiteral("worker.log")));
}

bool ClusterHarness::startServer(const QStringList &extraArgs)
{
    m_server = std::make_unique<QProcess>();
    m_server->setProcessChannelMode(QProcess::MergedChannels);
    m_server->setStandardOutputFile(path(QStringLiteral("server.log")));
    m_server->start(binary(QStringLiteral("ddl-server")),
                    QStringList{QStringLiteral("--data-dir"), path(QStringLiteral("server")),
                                QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}
                        + extraArgs);
    if (!m_server->waitForStarted(5000))
        return false;
    static const QRegularExpression listening(QStringLiteral("listening on (https://\\S+)"));
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15000 && m_server->state() == QProcess::Running) {
        const QRegularExpressionMatch match = listening.match(serverLog());
        if (match.hasMatch()) {
            m_url = match.captured(1);
            break;
        }
        QThread::msleep(50);
    }
    if (m_url.isEmpty())
        return false;
    QProcess token;
    token.start(binary(QStringLiteral("ddl-server")),
                {QStringLiteral("token"), QStringLiteral("create"), QStringLiteral("--data-dir"),
                 path(QStringLiteral("server"))});
    token.waitForFinished(15000);
    m_enrollToken = QString::fromUtf8(token.readAllStandardOutput()).trimmed();
    return token.exitCode() == 0 && !m_enrollToken.isEmpty();
}

bool ClusterHarness::killServer()
{
    if (!m_server || m_server->state() == QProcess::NotRunning)
        return false;
    m_server->kill();
    return m_server->waitForFinished(5000);
}

bool ClusterHarness::restartServer(const QStringList &extraArgs)
{
    const QString port = QString::number(QUrl(m_url).port());
    const qsizetype logStart = serverLog().size();
    m_server = std::make_unique<QProcess>();
    m_server->setProcessChannelMode(QProcess::MergedChannels);
    m_server->setStandardOutputFile(path(QStringLiteral("server.log")), QIODevice::Append);
    m_server->start(binary(QStringLiteral("ddl-server")),
                    QStringList{QStringLiteral("--data-dir"), path(QStringLiteral("server")),
                                QStringLiteral("--listen"), QStringLiteral("127.0.0.1:") + port}
                        + extraArgs);
    if (!m_server->waitForStarted(5000))
        return false;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15000 && m_server->state() == QProcess::Running) {
        if (serverLog().mid(logStart).contains(QStringLiteral("listening on https://")))
            return true;
        QThread::msleep(20);
    }
    return false;
}

bool ClusterHarness::startWorker(const QStringList &extraArgs)
{
    m_worker = std::make_unique<QProcess>();
    m_worker->setProcessChannelMode(QProcess::MergedChannels);
    m_worker->setStandardOutputFile(path(QStringLiteral("worker.log")), QIODevice::Append);
    m_worker->start(binary(QStringLiteral("ddl-worker")),
                    QStringList{QStringLiteral("--server"), m_url, QStringLiteral("--token"),
                                m_enrollToken, QStringLiteral("--ca-cert"), caCert(),
                                QStringLiteral("--work-dir"), path(QStringLiteral("worker"))}
                        + extraArgs);
    return m_worker->waitForStarted(5000);
}

bool ClusterHarness::startNamedWorker(const QString &name, const QStringList &extraArgs,
                                      const QProcessEnvironment &environment)
{
    auto worker = std::make_unique<QProcess>();
    worker->setProcessChannelMode(QProcess::MergedChannels);
    worker->setStandardOutputFile(path(name + QStringLiteral(".log")), QIODevice::Append);
    if (!environment.isEmpty())
        worker->setProcessEnvironment(environment);
    worker->start(binary(QStringLiteral("ddl-worker")),
                  QStringList{QStringLiteral("--server"), m_url, QStringLiteral("--token"),
                              m_enrollToken, QStringLiteral("--ca-cert"), caCert(),
                              QStringLiteral("--work-dir"), path(QStringLiteral("workers/") + name),
                              QStringLiteral("--name"), name}
                      + extraArgs);
    const bool started = worker->waitForStarted(5000);
    m_namedWorkers.push_back(std::move(worker));
    m_namedWorkerNames.append(name);
    return started;
}

bool ClusterHarness::killNamedWorker(const QString &name)
{
    const qsizetype index = m_namedWorkerNames.lastIndexOf(name);
    if (index < 0)
        return false;
    QProcess *worker = m_namedWorkers.at(size_t(index)).get();
    if (worker->state() == QProcess::NotRunning)
        return false;
    worker->kill();
    return worker->waitForFinished(5000);
}

CliRun ClusterHarness::setUserLimits(const QString &email, const QStringList &limits)
{
    QProcess process;
    process.start(binary(QStringLiteral("ddl-server")),
                  QStringList{QStringLiteral("user"), QStringLiteral("limits"),
                              QStringLiteral("--data-dir"), path(QStringLiteral("server")),
                              QStringLiteral("--email"), email}
                      + limits);
    CliRun run;
    if (!process.waitForFinished(15000)) {
        process.kill();
        process.waitForFinished(2000);
        run.err = QStringLiteral("ddl-server user limits timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString ClusterHarness::workerLog(const QString &name) const
{
    return readAll(path(name + QStringLiteral(".log")));
}

void ClusterHarness::stopWorker()
{
    if (m_worker) {
        m_worker->terminate();
        if (!m_worker->waitForFinished(10000))
            m_worker->kill();
    }
}

CliRun ClusterHarness::cli(const QString &user, const QStringList &args, const QString &workDir,
                           const QByteArray &stdinText, int timeoutMs)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DDL_SERVER"), m_url);
    env.insert(QStringLiteral("DDL_CA_CERT"), caCert());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), path(QStringLiteral("users/") + user));
    env.insert(QStringLiteral("HOME"), path(QStringLiteral("users/") + user));
    process.setProcessEnvironment(env);
    if (!workDir.isEmpty())
        process.setWorkingDirectory(workDir);
    process.start(binary(QStringLiteral("ddlcli")), args);
    process.waitForStarted(5000);
    process.write(stdinText);
    process.closeWriteChannel();
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        run.err = QStringLiteral("ddlcli timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err += QString::fromUtf8(process.readAllStandardError());
    return run;
}

bool ClusterHarness::registerAndLogin(const QString &user, const QString &password)
{
    QDir().mkpath(path(QStringLiteral("users/") + user));
    const QString email = user + QStringLiteral("@example.org");
    const QByteArray answers = (email + u'\n' + password + u'\n' + password + u'\n').toUtf8();
    const CliRun registered = cli(user, {QStringLiteral("register")}, {}, answers);
    if (registered.exitCode != 0) {
        qWarning("register failed: %s %s", qUtf8Printable(registered.out),
                 qUtf8Printable(registered.err));
        return false;
    }
    const CliRun login = cli(user, {QStringLiteral("login")}, {},
                             (email + u'\n' + password + u'\n').toUtf8());
    if (login.exitCode != 0) {
        qWarning("login failed: %s %s", qUtf8Printable(login.out), qUtf8Printable(login.err));
        return false;
    }
    return true;
}

bool ClusterHarness::git(const QString &repo, const QStringList &args)
{
    QProcess process;
    process.setWorkingDirectory(repo);
    process.start(QStringLiteral("git"),
                  QStringList{QStringLiteral("-c"), QStringLiteral("user.name=DDL Test"),
                              QStringLiteral("-c"), QStringLiteral("user.email=test@example.org")}
                      + args);
    return process.waitForFinished(30000) && process.exitCode() == 0;
}

static bool copyTree(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    const QDir source(from);
    for (const QFileInfo &entry :
         source.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)) {
        const QString target = QDir(to).filePath(entry.fileName());
        if (entry.isDir()) {
            if (entry.fileName() == QLatin1String("__pycache__"))
                continue;
            if (!copyTree(entry.filePath(), target))
                return false;
        } else if (!QFile::copy(entry.filePath(), target)) {
            return false;
        }
    }
    return true;
}

QString ClusterHarness::makeRepo(const QString &name, const QMap<QString, QByteArray> &files)
{
    const QString repo = path(QStringLiteral("repos/") + name);
    if (!QDir().mkpath(repo))
        return {};
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QFile file(QDir(repo).filePath(it.key()));
        if (!QDir().mkpath(QFileInfo(file).absolutePath()) || !file.open(QIODevice::WriteOnly)
            || file.write(it.value()) != it.value().size())
            return {};
    }
    if (!git(repo, {QStringLiteral("init"), QStringLiteral("-q")})
        || !git(repo, {QStringLiteral("add"), QStringLiteral("-A")})
        || !git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("jobs")}))
        return {};
    return repo;
}

QString ClusterHarness::makeExampleRepo(const QString &name)
{
    return makeExampleRepo(name, QStringLiteral("iris-numpy"));
}

QString ClusterHarness::makeExampleRepo(const QString &name, const QString &exampleFolder)
{
    const QString repo = path(QStringLiteral("repos/") + name);
    const QString example = QDir(qEnvironmentVariable("DDL_SOURCE_DIR"))
                                .filePath(QStringLiteral("examples/") + exampleFolder);
    if (!copyTree(example, repo))
        return {};
    if (!git(repo, {QStringLiteral("init"), QStringLiteral("-q")})
        || !git(repo, {QStringLiteral("add"), QStringLiteral("-A")})
        || !git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("example")}))
        return {};
    return repo;
}
