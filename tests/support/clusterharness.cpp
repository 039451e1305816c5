#include "clusterharness.h"

#include "gitrepo.h"
#include "polluntil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <grp.h>
#include <unistd.h>

QString jobUuidOf(const QString &submitOutput)
{
    static const QRegularExpression uuidLine(QStringLiteral("^job_uuid: (\\S+)$"),
                                             QRegularExpression::MultilineOption);
    return uuidLine.match(submitOutput).captured(1);
}

QByteArray ddlTaskYaml(const QString &name, const QString &image)
{
    QByteArray yaml = "job_data:\n  job_name: " + name.toUtf8() +
                      "\n  dataset:\n    dataset_location: ../data\n  worker_required: 1\n"
                      "  cpu_per_worker: 1\n  memory_mb_per_worker: 256\n";
    if (!image.isEmpty())
        yaml += "  image: " + image.toUtf8() + '\n';
    return yaml;
}

QByteArray openPaiJob(const QString &name, const QList<PaiRole> &roles, const QJsonObject &extra)
{
    QJsonArray taskRoles;
    for (const PaiRole &role : roles) {
        taskRoles.append(QJsonObject{{QStringLiteral("name"), role.name},
                                     {QStringLiteral("taskNumber"), role.tasks},
                                     {QStringLiteral("cpuNumber"), 1},
                                     {QStringLiteral("memoryMB"), 256},
                                     {QStringLiteral("gpuNumber"), role.gpus},
                                     {QStringLiteral("command"), role.command}});
    }
    QJsonObject job{{QStringLiteral("jobName"), name},
                    {QStringLiteral("image"), QStringLiteral("ubuntu")},
                    {QStringLiteral("taskRoles"), taskRoles}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        job.insert(it.key(), it.value());
    return QJsonDocument(job).toJson();
}

ClusterHarness::ClusterHarness()
    : m_server(m_dir.filePath(QStringLiteral("server")))
{
}

static void endProcess(QProcess *process)
{
    if (process->state() != QProcess::NotRunning && !process->waitForFinished(5000))
        process->kill();
    process->waitForFinished(2000);
}

ClusterHarness::~ClusterHarness()
{
    // Workers first, all at once, so that none waits for a server that is gone.
    for (const auto &worker : m_namedWorkers) {
        if (worker->state() != QProcess::NotRunning)
            worker->terminate();
    }
    for (const auto &worker : m_namedWorkers)
        endProcess(worker.get());
    if (m_worker) {
        m_worker->terminate();
        endProcess(m_worker.get());
    }
    m_server.stop();
}

QString ClusterHarness::path(const QString &relative) const
{
    return m_dir.filePath(relative);
}

static QString readAll(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString ClusterHarness::workerLog() const
{
    return readAll(path(QStringLiteral("worker.log")));
}

QString ClusterHarness::workerLog(const QString &name) const
{
    return readAll(path(name + QStringLiteral(".log")));
}

bool ClusterHarness::startServer(const QStringList &extraArgs)
{
    const QString failure = m_server.start(0, extraArgs);
    if (!failure.isEmpty()) {
        qWarning("%s", qPrintable(failure));
        return false;
    }
    m_url = m_server.url().toString();
    m_enrollToken = ServerProcess::createEnrollToken(m_server.dataDir());
    return !m_enrollToken.isEmpty();
}

bool ClusterHarness::killServer()
{
    return m_server.kill();
}

bool ClusterHarness::restartServer(const QStringList &extraArgs)
{
    const QString failure = m_server.start(quint16(QUrl(m_url).port()), extraArgs);
    if (!failure.isEmpty())
        qWarning("%s", qPrintable(failure));
    return failure.isEmpty();
}

std::unique_ptr<QProcess> ClusterHarness::startWorkerProcess(const QString &workDir,
                                                             const QString &log,
                                                             const QStringList &args,
                                                             const QProcessEnvironment &environment,
                                                             const UnprivilegedUser *runAs)
{
    auto worker = std::make_unique<QProcess>();
    worker->setProcessChannelMode(QProcess::MergedChannels);
    worker->setStandardOutputFile(path(log), QIODevice::Append);
    if (!environment.isEmpty())
        worker->setProcessEnvironment(environment);
    const QString program = binary(QStringLiteral("ddl-worker"));
    QStringList prefix;
    QString ca = caCert();
    if (runAs) {
        // What the user must reach: its work dir (its own), the CA (a copy it owns), through
        // this test's folder (searchable, not readable, by others).
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner
                                                | QFile::ExeOwner | QFile::ExeGroup
                                                | QFile::ExeOther);
        const QString home = path(workDir);
        QDir().mkpath(home);
        ca = home + QStringLiteral("/ca.crt");
        QFile::copy(caCert(), ca);
        const QString runtimeDir = path(workDir + QStringLiteral("-run"));
        QDir().mkpath(runtimeDir);
        for (const QString &owned : {home, ca, runtimeDir}) {
            if (::chown(qPrintable(owned), runAs->uid, runAs->gid) != 0)
                qWarning("chown %s failed", qPrintable(owned));
        }
        QFile::setPermissions(runtimeDir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QProcessEnvironment userEnvironment =
            environment.isEmpty() ? QProcessEnvironment::systemEnvironment() : environment;
        userEnvironment.insert(QStringLiteral("HOME"), runAs->home);
        userEnvironment.insert(QStringLiteral("USER"), runAs->name);
        userEnvironment.insert(QStringLiteral("LOGNAME"), runAs->name);
        userEnvironment.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir);
        worker->setProcessEnvironment(userEnvironment);
        // The worker process itself becomes the user (no runuser in between, so that kill and
        // terminate reach it).
        const uid_t uid = runAs->uid;
        const gid_t gid = runAs->gid;
        worker->setChildProcessModifier([uid, gid] {
            if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)
                ::_exit(126);
        });
    } else if (::geteuid() == 0) {
        // The tests run as root in CI's fresh root: the worker refuses that unless told.
        prefix = {QStringLiteral("--allow-root")};
    }
    worker->start(program,
                  prefix + QStringList{QStringLiteral("--server"),
                                       m_url,
                                       QStringLiteral("--token"),
                                       m_enrollToken,
                                       QStringLiteral("--ca-cert"),
                                       ca,
                                       QStringLiteral("--work-dir"),
                                       path(workDir)} +
                      args);
    return worker;
}

bool ClusterHarness::startWorker(const QStringList &extraArgs)
{
    m_worker =
        startWorkerProcess(QStringLiteral("worker"), QStringLiteral("worker.log"), extraArgs, {});
    return m_worker->waitForStarted(5000);
}

bool ClusterHarness::startNamedWorker(const QString &name,
                                      const QStringList &extraArgs,
                                      const QProcessEnvironment &environment)
{
    auto worker = startWorkerProcess(QStringLiteral("workers/") + name,
                                     name + QStringLiteral(".log"),
                                     QStringList{QStringLiteral("--name"), name} + extraArgs,
                                     environment);
    const bool started = worker->waitForStarted(5000);
    m_namedWorkers.push_back(std::move(worker));
    m_namedWorkerNames.append(name);
    return started;
}

bool ClusterHarness::startNamedWorkerAs(const QString &name,
                                        const UnprivilegedUser &user,
                                        const QStringList &extraArgs)
{
    auto worker = startWorkerProcess(QStringLiteral("workers/") + name,
                                     name + QStringLiteral(".log"),
                                     QStringList{QStringLiteral("--name"), name} + extraArgs,
                                     {},
                                     &user);
    const bool started = worker->waitForStarted(5000);
    m_namedWorkers.push_back(std::move(worker));
    m_namedWorkerNames.append(name);
    return started;
}

qint64 ClusterHarness::namedWorkerPid(const QString &name) const
{
    const qsizetype index = m_namedWorkerNames.lastIndexOf(name);
    return index < 0 ? 0 : m_namedWorkers.at(size_t(index))->processId();
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

void ClusterHarness::stopWorker()
{
    if (m_worker) {
        m_worker->terminate();
        if (!m_worker->waitForFinished(10000))
            m_worker->kill();
    }
}

CliRun ClusterHarness::setUserLimits(const QString &email, const QStringList &limits)
{
    CliRun run;
    run.out = ServerProcess::runCommand(QStringList{QStringLiteral("user"),
                                                    QStringLiteral("limits"),
                                                    QStringLiteral("--data-dir"),
                                                    m_server.dataDir(),
                                                    QStringLiteral("--email"),
                                                    email} +
                                            limits,
                                        &run.exitCode,
                                        &run.err);
    return run;
}

QProcessEnvironment ClusterHarness::cliEnvironment(const QString &user) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DDL_SERVER"), m_url);
    env.insert(QStringLiteral("DDL_CA_CERT"), caCert());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), path(QStringLiteral("users/") + user));
    env.insert(QStringLiteral("HOME"), path(QStringLiteral("users/") + user));
    return env;
}

CliRun ClusterHarness::cli(const QString &user,
                           const QStringList &args,
                           const QString &workDir,
                           const QByteArray &stdinText,
                           int timeoutMs)
{
    QProcess process;
    process.setProcessEnvironment(cliEnvironment(user));
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
        qWarning("register failed: %s %s",
                 qUtf8Printable(registered.out),
                 qUtf8Printable(registered.err));
        return false;
    }
    const CliRun login =
        cli(user, {QStringLiteral("login")}, {}, (email + u'\n' + password + u'\n').toUtf8());
    if (login.exitCode != 0) {
        qWarning("login failed: %s %s", qUtf8Printable(login.out), qUtf8Printable(login.err));
        return false;
    }
    return true;
}

CliRun ClusterHarness::submitJobJson(const QString &user,
                                     const QString &name,
                                     const QByteArray &jobJson)
{
    const QString repo = makeRepo(name, {{QStringLiteral("job.json"), jobJson}});
    if (repo.isEmpty()) {
        CliRun failed;
        failed.err = QStringLiteral("could not make the repository ") + name;
        return failed;
    }
    return cli(user, {QStringLiteral("submit"), QStringLiteral("--job_config=job.json")}, repo);
}

QString ClusterHarness::jobLogs(const QString &user, const QString &uuid)
{
    return cli(user, {QStringLiteral("logs"), QStringLiteral("--job_uuid=") + uuid}).out;
}

QString ClusterHarness::jobDiagnostics(const QString &user,
                                       const QString &uuid,
                                       const QStringList &workers)
{
    QString text = QString::fromUtf8(QJsonDocument(job(user, uuid)).toJson()) +
                   QStringLiteral("\n--- logs ---\n") + jobLogs(user, uuid);
    for (const QString &worker : workers)
        text += QStringLiteral("\n--- worker ") + worker + QStringLiteral(" ---\n") +
                workerLog(worker).right(3000);
    return text + QStringLiteral("\n--- server ---\n") + serverLog().right(3000);
}

QJsonObject ClusterHarness::job(const QString &user, const QString &uuidOrName)
{
    const CliRun run = cli(user,
                           {QStringLiteral("progress"),
                            QStringLiteral("--job_uuid=") + uuidOrName,
                            QStringLiteral("--output=json")});
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

QString ClusterHarness::waitForJobEnd(const QString &user, const QString &uuidOrName, int timeoutMs)
{
    QString state;
    // Each look is a ddlcli process: a quarter second apart keeps the machine for the jobs.
    pollUntil(
        [&] {
            state = job(user, uuidOrName).value(QLatin1String("state")).toString();
            return ddl::isFinalState(state);
        },
        timeoutMs,
        {},
        250);
    return state;
}

bool ClusterHarness::git(const QString &repo, const QStringList &args)
{
    return ::git(repo, args);
}

QString ClusterHarness::makeRepo(const QString &name, const QMap<QString, QByteArray> &files)
{
    return makeGitRepo(path(QStringLiteral("repos/") + name), files);
}

QString ClusterHarness::makeExampleRepo(const QString &name)
{
    return makeExampleRepo(name, QStringLiteral("iris-numpy"));
}

QString ClusterHarness::makeExampleRepo(const QString &name, const QString &exampleFolder)
{
    return makeExampleGitRepo(path(QStringLiteral("repos/") + name), exampleFolder);
}
