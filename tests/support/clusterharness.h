#pragma once

#include "serverprocess.h"
#include "serveruser.h"
#include "unprivilegeduser.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <memory>
#include <vector>

// What one ddlcli run did.
struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
};

// The uuid on the "job_uuid: <uuid>" line that `ddlcli submit` prints, or an empty string.
QString jobUuidOf(const QString &submitOutput);

// One task role of an OpenPAI job.
struct PaiRole
{
    QString name;
    int tasks = 1;
    int gpus = 0;
    QString command;
};

// An OpenPAI v1 job config as a user writes it (image "ubuntu", 1 CPU and 256 MB a task), with
// extra members (retryCount, jobEnvs, ...) added at the top level.
QByteArray
openPaiJob(const QString &name, const QList<PaiRole> &roles, const QJsonObject &extra = {});

// A DDL task.yaml of one worker with 1 CPU and 256 MB, the dataset folder ../data (beside the
// repositories the harness makes) and the image, when one is given.
QByteArray ddlTaskYaml(const QString &name, const QString &image = {});

// A real DDL installation on loopback for end-to-end tests: ddl-server (a ServerProcess) and
// ddl-worker started as processes over TLS with a real SQLite file, and ddlcli run as a process
// per command, each user with a config folder of their own.
class ClusterHarness
{
public:
    ClusterHarness();
    ~ClusterHarness();

    // Extra flags go to ddl-server after --data-dir and --listen (e.g. --worker-timeout 4).
    bool startServer(const QStringList &extraArgs = {});
    // SIGKILLs ddl-server (no shutdown of any kind) and waits until it is gone.
    bool killServer();
    // Starts ddl-server again on the same data dir and port, so workers and ddlcli keep their
    // URL; returns once it logs that it listens (its log is appended to server.log).
    bool restartServer(const QStringList &extraArgs = {});
    bool startWorker(const QStringList &extraArgs = {});
    void stopWorker();
    QString serverUrl() const { return m_url; }
    QString enrollToken() const { return m_enrollToken; }
    QString caCert() const { return m_server.caFile(); }
    QString serverDataDir() const { return m_server.dataDir(); }
    QString path(const QString &relative) const;
    QString serverLog() const { return m_server.log(); }
    QString workerLog() const;

    // More workers beside the one of startWorker, each with a name, a work dir (workers/<name>)
    // and a log (<name>.log) of its own. An empty environment means the test's own.
    bool startNamedWorker(const QString &name,
                          const QStringList &extraArgs = {},
                          const QProcessEnvironment &environment = {});
    // The same as user, a user who is not root (the test runs as root): the process becomes it
    // (setgroups, setgid, setuid before exec), with a work dir and a copy of the CA the user
    // owns, the user's home and an XDG_RUNTIME_DIR of its own, so that bubblewrap and podman
    // run rootless as they do for a GPU owner.
    bool startNamedWorkerAs(const QString &name,
                            const UnprivilegedUser &user,
                            const QStringList &extraArgs = {});
    QString workerLog(const QString &name) const;
    // The process ID of the named worker (0 when it is not running), e.g. to send it SIGHUP.
    qint64 namedWorkerPid(const QString &name) const;
    // SIGKILLs the named worker (no goodbye to the server: its heartbeats simply stop).
    bool killNamedWorker(const QString &name);

    // `ddl-server user limits` on this server's data dir (e.g. {"--max-gpus", "1"}); the running
    // server reads it at its next housekeeping round (~2 s). Returns the command's output.
    CliRun setUserLimits(const QString &email, const QStringList &limits);

    // The environment ddlcli runs in as user: this server, its certificate, a config folder.
    QProcessEnvironment cliEnvironment(const QString &user) const;
    // Runs ddlcli as user (a config folder per user) in workDir with stdinText piped in.
    CliRun cli(const QString &user,
               const QStringList &args,
               const QString &workDir = {},
               const QByteArray &stdinText = {},
               int timeoutMs = 120000);
    bool registerAndLogin(const QString &user, const QString &password);
    // The job as `ddlcli progress --output=json` shows it to user; empty when that fails.
    QJsonObject job(const QString &user, const QString &uuidOrName);
    // Every task's log as `ddlcli logs` prints it to user.
    QString jobLogs(const QString &user, const QString &uuid);
    // For a failed check: the job, its logs, the named workers' and the server's last lines.
    QString jobDiagnostics(const QString &user, const QString &uuid, const QStringList &workers);
    // Polls job() until the job is SUCCEEDED, FAILED or STOPPED; returns the last state seen.
    QString waitForJobEnd(const QString &user, const QString &uuidOrName, int timeoutMs = 90000);

    // A git repository made from the example project (examples/iris-numpy), committed.
    QString makeExampleRepo(const QString &name);
    // The same from any folder under examples/.
    QString makeExampleRepo(const QString &name, const QString &exampleFolder);
    // A git repository with just these files (name -> content), committed.
    QString makeRepo(const QString &name, const QMap<QString, QByteArray> &files);
    // A repository `name` holding jobJson as job.json, submitted by user with
    // `ddlcli submit --job_config=job.json`; what ddlcli printed (jobUuidOf(out) is the job).
    CliRun submitJobJson(const QString &user, const QString &name, const QByteArray &jobJson);
    static bool git(const QString &repo, const QStringList &args);
    static QString binary(const QString &name) { return ServerProcess::binary(name); }

private:
    std::unique_ptr<QProcess> startWorkerProcess(const QString &workDir,
                                                 const QString &log,
                                                 const QStringList &args,
                                                 const QProcessEnvironment &environment,
                                                 const UnprivilegedUser *runAs = nullptr);

    QTemporaryDir m_dir;
    ServerProcess m_server;
    std::unique_ptr<QProcess> m_worker;
    std::vector<std::unique_ptr<QProcess>> m_namedWorkers;
    QStringList m_namedWorkerNames; // by the index of m_namedWorkers
    QString m_url;
    QString m_enrollToken;
};
