// The whole worker (WorkerAgent, in this process) against the real ddl-server binary started as a
// process on loopback over TLS with a real SQLite file: enrollment, leases, code and data through
// the cache, real python3 and /bin/sh tasks, logs, artifacts and cancel, all seen through the
// server's public API (and its store, for what only the store records).
#include "agent/workeragent.h"
#include "api/apiclient.h"
#include "packaging/directoryarchiver.h"
#include "polluntil.h"
#include "prerequisite.h"
#include "serverprocess.h"
#include "serveruser.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

#define VERIFY_OK(result) QVERIFY2((result), (result) ? "" : qPrintable((result).error().message))

namespace {

// main.py of the test's DDL package; SLEEP is replaced by the seconds it sleeps.
const QByteArray TrainingMain = R"(
import json, os, time

def main(dataset_dir, model_output_dir):
    with open(os.path.join(dataset_dir, "numbers.txt")) as f:
        print("dataset sum", sum(int(x) for x in f.read().split()))
    print("gpus", repr(os.environ.get("DDL_GPUS")))
    print("cuda", repr(os.environ.get("CUDA_VISIBLE_DEVICES")))
    print("role", os.environ["PAI_TASK_ROLE_NAME"], "port set",
          os.environ["PAI_CURRENT_CONTAINER_PORT"] != "0")
    for step in range(3):
        print("DDL_METRIC " + json.dumps({"step": step, "loss": 1.0 / (step + 1)}))
    time.sleep(SLEEP)
    os.makedirs(os.path.join(model_output_dir, "sub"))
    # Each task's outputs are its own, as their uploads may run at the same time.
    task = os.environ["PAI_JOB_NAME"] + "." + os.environ["PAI_TASK_ROLE_INDEX"]
    with open(os.path.join(model_output_dir, "model.txt"), "w") as f:
        f.write("weights " + task)
    with open(os.path.join(model_output_dir, "sub", "metrics.json"), "w") as f:
        json.dump({"loss": 0.33, "task": task}, f)
)";

QByteArray trainingMain(double sleepSeconds)
{
    return QByteArray(TrainingMain).replace("SLEEP", QByteArray::number(sleepSeconds));
}

// Whether the worker's python3 can import modules (Debian: python3-numpy, python3-venv).
bool pythonCanImport(const QString &modules)
{
    QProcess probe;
    probe.start(defaultPythonInterpreter(), {u"-c"_s, u"import "_s + modules});
    return probe.waitForFinished(30000) && probe.exitStatus() == QProcess::NormalExit &&
           probe.exitCode() == 0;
}

// A process that still runs (a zombie has ended: only its parent has not collected it yet).
bool processRuns(qint64 pid)
{
    QFile stat(u"/proc/%1/stat"_s.arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype end = line.lastIndexOf(')');
    const char state = end >= 0 && end + 2 < line.size() ? line.at(end + 2) : '?';
    return state != 'Z' && state != 'X';
}

// The running processes that descend from root, as /proc tells them; the ids are the host's, so
// they hold for tasks in a sandbox's PID namespace as well.
QSet<qint64> descendantsOf(qint64 root)
{
    QMultiHash<qint64, qint64> children;
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        QFile stat(u"/proc/%1/stat"_s.arg(entry));
        if (!isPid || !stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // pid (comm) state ppid ...
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1)
            children.insert(fields.at(1).toLongLong(), pid);
    }
    QSet<qint64> found;
    QList<qint64> pending{root};
    while (!pending.isEmpty()) {
        for (qint64 child : children.values(pending.takeFirst())) {
            if (!found.contains(child) && processRuns(child)) {
                found.insert(child);
                pending.append(child);
            }
        }
    }
    return found;
}

QByteArray commandOf(qint64 pid)
{
    QFile comm(u"/proc/%1/comm"_s.arg(pid));
    return comm.open(QIODevice::ReadOnly) ? comm.readAll().trimmed() : QByteArray();
}

// The inode of a cached file: a download or extraction again would rename a new file in. (Its
// times change on each use: the cache records the last use in the modification time.)
quint64 identityOfFile(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return 0;
    return quint64(info.st_ino);
}

nlink_t linkCount(const QString &path)
{
    struct stat info = {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_nlink : 0;
}

// Messages of the worker's logging categories, as an operator reads them.
QStringList s_workerMessages;
QtMessageHandler s_nextHandler = nullptr;

void recordWorkerMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (context.category && QByteArrayView(context.category).startsWith("ddl.worker"))
        s_workerMessages.append(message);
    s_nextHandler(type, context, message);
}

} // namespace

class tst_WorkerAgent : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void runsADdlTaskEndToEnd();
    void runsTasksOnTheirOwnGpus_declaredGpus();
    void cachesCodeAndDataAcrossTasks();
    void runsOnAManifestDataset();
    void tinyCacheStillRunsTasks();
    void cancelFromHeartbeatEndsTheProcessTree();
    void requirementsRunInAVenv();
    void runsTheIrisExample();
    void failuresAreReportedFailed();
    void stdoutAndStderrAreKeptApart();
    void tasksRunningAtOnceUploadTheSameOutput();
    void reenrollsOn401AndReusesItsIdentity();
    void refusedEnrollmentIsFatal();
    void noTokenAndNoIdentityCannotStart();

private:
    WorkerConfig config() const;
    void startAgent(const WorkerConfig &config);
    ddl::Result<QString> uploadArchive(const QMap<QString, QByteArray> &files);
    // numbers.txt ("1 2 3") as a manifest dataset; returns the manifest's digest.
    ddl::Result<QString> uploadManifestDataset();
    // Waits for the job to end; returns its final state, or empty after timeoutMs.
    QString waitForEnd(const QString &uuid, int timeoutMs = 30000);
    // The job as the server shows it, with the logs of its tasks, for failure messages.
    QByteArray describe(const QString &uuid);
    QJsonObject onlyTask(const QString &uuid);
    QString savedToken() const;
    int fetchesOf(const QString &sha256) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ServerProcess> m_server;
    std::unique_ptr<ServerUser> m_user;
    std::unique_ptr<WorkerAgent> m_agent;
    QString m_enrollToken;
    QString m_package;
    QString m_dataset;
    QStringList m_events; // "start:17", "end:17:SUCCEEDED", as the agent signals them
    int m_archives = 0;
};

void tst_WorkerAgent::initTestCase()
{
    s_nextHandler = qInstallMessageHandler(recordWorkerMessage);
}

void tst_WorkerAgent::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<ServerProcess>(m_dir->filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_enrollToken = ServerProcess::createEnrollToken(m_server->dataDir());
    QVERIFY(!m_enrollToken.isEmpty());
    m_user = std::make_unique<ServerUser>(
        m_server->url(), m_server->caFile(), m_dir->filePath(u"uploads"_s));
    const ddl::Status registered = m_user->registerAndLogin(u"alice@example.org"_s);
    VERIFY_OK(registered);

    const ddl::Result<QString> package = uploadArchive({{u"main.py"_s, trainingMain(0)}});
    VERIFY_OK(package);
    m_package = *package;
    const ddl::Result<QString> dataset = uploadArchive({{u"numbers.txt"_s, "1 2 3\n"}});
    VERIFY_OK(dataset);
    m_dataset = *dataset;
    m_events.clear();
    s_workerMessages.clear();
}

void tst_WorkerAgent::cleanup()
{
    m_agent.reset();
    m_user.reset();
    if (m_server && QTest::currentTestFailed())
        qWarning("ddl-server's log:\n%s", qUtf8Printable(m_server->log()));
    m_server.reset();
}

WorkerConfig tst_WorkerAgent::config() const
{
    WorkerConfig config;
    config.serverUrl = m_server->url();
    config.caCertFile = m_server->caFile();
    config.enrollToken = m_enrollToken;
    config.workDir = m_dir->filePath(u"work"_s);
    config.name = u"test-worker"_s;
    config.gpus = 2; // declared as with --gpus 2: there is no GPU here
    config.slotCount = 2;
    config.heartbeatIntervalMs = 200;
    config.leaseIntervalMs = 100;
    config.logFlushIntervalMs = 50;
    config.killGraceMs = 2000;
    config.enrollRetryMs = 500;
    config.applyDefaults();
    return config;
}

void tst_WorkerAgent::startAgent(const WorkerConfig &config)
{
    m_agent = std::make_unique<WorkerAgent>(config);
    connect(m_agent.get(), &WorkerAgent::taskStarted, this, [this](qint64 id) {
        m_events << u"start:%1"_s.arg(id);
    });
    connect(
        m_agent.get(), &WorkerAgent::taskFinished, this, [this](qint64 id, const QString &state) {
            m_events << u"end:%1:%2"_s.arg(id).arg(state);
        });
}

ddl::Result<QString> tst_WorkerAgent::uploadArchive(const QMap<QString, QByteArray> &files)
{
    const QString source = m_dir->filePath(u"source-%1"_s.arg(++m_archives));
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QString path = source + u'/' + it.key();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(it.value()) != it.value().size())
            return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot write "_s + path);
    }
    const auto archive = ddl::DirectoryArchiver().archive(
        source, m_dir->filePath(u"archive-%1.tar.zst"_s.arg(m_archives)));
    if (!archive)
        return archive.error();
    QFile file(archive->archivePath);
    if (!file.open(QIODevice::ReadOnly))
        return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot read "_s + archive->archivePath);
    return m_user->upload(file.readAll());
}

ddl::Result<QString> tst_WorkerAgent::uploadManifestDataset()
{
    const QString folder = m_dir->filePath(u"manifest-dataset"_s);
    QDir().mkpath(folder + u"/more"_s);
    QFile numbers(folder + u"/numbers.txt"_s);
    if (!numbers.open(QIODevice::WriteOnly) || numbers.write("1 2 3\n") != 6)
        return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot write "_s + numbers.fileName());
    numbers.close();
    QFile notes(folder + u"/more/notes.txt"_s);
    if (!notes.open(QIODevice::WriteOnly) || notes.write("read me\n") != 8)
        return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot write "_s + notes.fileName());
    notes.close();
    return m_user->uploadDataset(folder);
}

QString tst_WorkerAgent::waitForEnd(const QString &uuid, int timeoutMs)
{
    QString state;
    pollUntil(
        [&] {
            state = m_user->jobState(uuid);
            return ddl::isFinalState(state);
        },
        timeoutMs);
    return ddl::isFinalState(state) ? state : QString();
}

QByteArray tst_WorkerAgent::describe(const QString &uuid)
{
    QByteArray text = QJsonDocument(m_user->job(uuid)).toJson();
    for (const QJsonValue &task : m_user->tasks(uuid)) {
        const qint64 id = task[u"id"_s].toInteger();
        text += "log of task " + QByteArray::number(id) + ":\n" + m_user->log(uuid, id);
    }
    return text;
}

QJsonObject tst_WorkerAgent::onlyTask(const QString &uuid)
{
    const QJsonArray tasks = m_user->tasks(uuid);
    return tasks.size() == 1 ? tasks.first().toObject() : QJsonObject();
}

QString tst_WorkerAgent::savedToken() const
{
    QFile identity(m_dir->filePath(u"work/worker.json"_s));
    if (!identity.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(identity.readAll())[u"worker_token"_s].toString();
}

int tst_WorkerAgent::fetchesOf(const QString &sha256) const
{
    int fetches = 0;
    for (const QString &message : std::as_const(s_workerMessages)) {
        if (message.startsWith(u"fetching blob") && message.contains(sha256))
            ++fetches;
    }
    return fetches;
}

void tst_WorkerAgent::runsADdlTaskEndToEnd()
{
    startAgent(config());
    QSignalSpy enrolled(m_agent.get(), &WorkerAgent::enrolled);
    QVERIFY(m_agent->start().ok());
    QVERIFY(enrolled.wait(10000));

    // The server recorded what the worker declared, and its heartbeats keep coming.
    QList<QVariantMap> workers = m_server->workers();
    QCOMPARE(workers.size(), 1);
    QCOMPARE(workers.first().value(u"id"_s).toString(), m_agent->workerId());
    QCOMPARE(workers.first().value(u"name"_s).toString(), u"test-worker"_s);
    QVERIFY(!workers.first().value(u"hostname"_s).toString().isEmpty());
    QCOMPARE(workers.first().value(u"gpus"_s).toInt(), 2);
    QCOMPARE(workers.first().value(u"slots"_s).toInt(), 2);
    QVERIFY(workers.first().value(u"cpus"_s).toInt() >= 1);
    QVERIFY(workers.first().value(u"memory_mb"_s).toLongLong() > 0);
    const qint64 enrolledAt = workers.first().value(u"last_seen"_s).toLongLong();
    QTRY_VERIFY(m_server->workers().value(0).value(u"last_seen"_s).toLongLong() > enrolledAt);
    const QString identity = m_dir->filePath(u"work/worker.json"_s);
    QCOMPARE(QFile::permissions(identity),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                 QFileDevice::WriteUser);

    const ddl::Result<QString> uuid =
        m_user->submit(jobSpec(u"ddl"_s, u"e2e"_s, 1, 1), m_package, m_dataset);
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid) == u"SUCCEEDED", describe(*uuid).constData());
    const QJsonObject task = onlyTask(*uuid);
    const qint64 taskId = task[u"id"_s].toInteger();
    QTRY_VERIFY(m_events.contains(u"end:%1:SUCCEEDED"_s.arg(taskId)));
    QCOMPARE(task[u"state"_s].toString(), u"SUCCEEDED"_s);
    QCOMPARE(task[u"exit_code"_s].toInt(-1), 0);
    QCOMPARE(task[u"worker"_s].toString(), u"test-worker"_s);
    QVERIFY(!task[u"started_at"_s].toString().isEmpty()); // it was reported RUNNING

    const QByteArray log = m_user->log(*uuid, taskId);
    QVERIFY2(log.contains("dataset sum 6"), log.constData());
    QVERIFY(log.contains("gpus '0'"));
    QVERIFY(log.contains("role worker port set True"));
    QVERIFY(log.contains("DDL_METRIC {\"step\": 2, \"loss\": 0.3333333333333333}"));
    QVERIFY(log.contains("[ddl-worker] final state SUCCEEDED (exit code 0)"));
    QFile localLog(m_dir->filePath(u"work/tasks/%1/task.log"_s.arg(taskId)));
    QVERIFY(localLog.open(QIODevice::ReadOnly));
    QCOMPARE(localLog.readAll(), log);

    // Outputs were uploaded as blobs and registered with the task.
    const QJsonArray files = m_user->artifacts(*uuid);
    QCOMPARE(files.size(), 2);
    QCOMPARE(files.at(0)[u"path"_s].toString(), u"model.txt"_s);
    QCOMPARE(files.at(1)[u"path"_s].toString(), u"sub/metrics.json"_s);
    QCOMPARE(files.at(0)[u"size"_s].toInt(), 13);
    QCOMPARE(m_user->artifact(*uuid, u"model.txt"_s), QByteArray("weights e2e.0"));
    QCOMPARE(m_user->artifact(*uuid, u"sub/metrics.json"_s),
             QByteArray("{\"loss\": 0.33, \"task\": \"e2e.0\"}"));

    // The server takes a task's log and outputs only while it runs, so the whole log and the
    // outputs above arrived before the final state did.
    ddl::ApiClient asWorker(m_server->url(), *ddl::ServerTrust::fromCaFile(m_server->caFile()));
    asWorker.setBearerToken(savedToken());
    QUrlQuery atEnd;
    atEnd.addQueryItem(u"offset"_s, QString::number(log.size()));
    std::unique_ptr<ddl::ApiRequest> lateLog(
        asWorker.sendBytes("POST", u"/v1/workers/tasks/%1/log"_s.arg(taskId), "too late\n", atEnd));
    QVERIFY(!lateLog->waitForFinished());
    QCOMPARE(lateLog->result().error().code, u"conflict"_s);
    const ddl::Result<ddl::ApiResponse> lateFiles = asWorker.postJsonSync(
        u"/v1/workers/tasks/%1/artifacts"_s.arg(taskId), {{u"files"_s, files}});
    QVERIFY(!lateFiles);
    QCOMPARE(lateFiles.error().code, u"conflict"_s);
    QVERIFY(m_agent->taskIds().isEmpty());
}

void tst_WorkerAgent::runsTasksOnTheirOwnGpus_declaredGpus()
{
    // Two declared GPUs and two slots. A holds one GPU for a while; B needs both, so it waits
    // while C, which needs one, runs beside A on the other.
    const ddl::Result<QString> slowPackage = uploadArchive({{u"main.py"_s, trainingMain(2.5)}});
    VERIFY_OK(slowPackage);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> a =
        m_user->submit(jobSpec(u"ddl"_s, u"a"_s, 1, 1), *slowPackage, m_dataset);
    VERIFY_OK(a);
    QTRY_COMPARE_WITH_TIMEOUT(m_events.size(), 1, 10000); // A started
    const ddl::Result<QString> b =
        m_user->submit(jobSpec(u"ddl"_s, u"b"_s, 1, 2), m_package, m_dataset);
    VERIFY_OK(b);
    const ddl::Result<QString> c =
        m_user->submit(jobSpec(u"ddl"_s, u"c"_s, 1, 1), m_package, m_dataset);
    VERIFY_OK(c);
    for (const QString &uuid : {*a, *b, *c})
        QVERIFY2(waitForEnd(uuid) == u"SUCCEEDED", describe(uuid).constData());

    const qint64 taskA = onlyTask(*a)[u"id"_s].toInteger();
    const qint64 taskB = onlyTask(*b)[u"id"_s].toInteger();
    const qint64 taskC = onlyTask(*c)[u"id"_s].toInteger();
    QTRY_COMPARE(m_events.size(), 6);
    const auto at = [this](const QString &event) { return m_events.indexOf(event); };
    QVERIFY2(at(u"start:%1"_s.arg(taskC)) < at(u"end:%1:SUCCEEDED"_s.arg(taskA)),
             qPrintable(m_events.join(u' ')));
    QVERIFY2(at(u"start:%1"_s.arg(taskB)) > at(u"end:%1:SUCCEEDED"_s.arg(taskA)),
             qPrintable(m_events.join(u' ')));
    QVERIFY2(at(u"start:%1"_s.arg(taskB)) > at(u"end:%1:SUCCEEDED"_s.arg(taskC)),
             qPrintable(m_events.join(u' ')));

    const QByteArray logA = m_user->log(*a, taskA);
    const QByteArray logC = m_user->log(*c, taskC);
    QVERIFY2((logA.contains("gpus '0'") && logC.contains("gpus '1'")) ||
                 (logA.contains("gpus '1'") && logC.contains("gpus '0'")),
             QByteArray(logA + logC).constData());
    // The sandbox shows each task only its own GPUs, which CUDA numbers from 0.
    QVERIFY2(logA.contains("cuda '0'") && logC.contains("cuda '0'"),
             QByteArray(logA + logC).constData());
    const QByteArray logB = m_user->log(*b, taskB);
    QVERIFY2(logB.contains("gpus '0,1'") && logB.contains("cuda '0,1'"), logB.constData());
}

void tst_WorkerAgent::cachesCodeAndDataAcrossTasks()
{
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    // Two tasks at once (two slots, one GPU each) ask for the same blobs together.
    const ddl::Result<QString> first =
        m_user->submit(jobSpec(u"ddl"_s, u"first"_s, 2, 1), m_package, m_dataset);
    VERIFY_OK(first);
    QVERIFY2(waitForEnd(*first) == u"SUCCEEDED", describe(*first).constData());
    const QJsonArray tasks = m_user->tasks(*first);
    QCOMPARE(tasks.size(), 2);
    const QByteArray log0 = m_user->log(*first, tasks.at(0)[u"id"_s].toInteger());
    const QByteArray log1 = m_user->log(*first, tasks.at(1)[u"id"_s].toInteger());
    QVERIFY2(log0.contains("gpus '0'") != log1.contains("gpus '0'"),
             QByteArray(log0 + log1).constData());

    const QString blob = m_dir->filePath(u"work/cache/blobs/"_s + m_package);
    const QString dataset = m_dir->filePath(u"work/cache/datasets/"_s + m_dataset);
    QVERIFY(QFileInfo(blob).isFile());
    QVERIFY(QFileInfo(dataset).isDir());
    const auto blobBefore = identityOfFile(blob);
    const auto datasetBefore = identityOfFile(dataset + u"/numbers.txt"_s);

    const ddl::Result<QString> second =
        m_user->submit(jobSpec(u"ddl"_s, u"second"_s, 1, 1), m_package, m_dataset);
    VERIFY_OK(second);
    QVERIFY2(waitForEnd(*second) == u"SUCCEEDED", describe(*second).constData());
    QVERIFY(m_user->log(*second, onlyTask(*second)[u"id"_s].toInteger()).contains("dataset sum 6"));

    // Three tasks, one download of each blob, and the cached copies were not written again.
    QCOMPARE(fetchesOf(m_package), 1);
    QCOMPARE(fetchesOf(m_dataset), 1);
    QCOMPARE(identityOfFile(blob), blobBefore);
    QCOMPARE(identityOfFile(dataset + u"/numbers.txt"_s), datasetBefore);
}

void tst_WorkerAgent::runsOnAManifestDataset()
{
    const ddl::Result<QString> manifest = uploadManifestDataset();
    VERIFY_OK(manifest);
    const QString numbersBlob = QString::fromLatin1(
        QCryptographicHash::hash("1 2 3\n", QCryptographicHash::Sha256).toHex());
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> first = m_user->submitWithDataset(
        jobSpec(u"ddl"_s, u"manifest-1"_s), m_package, {{u"manifest"_s, *manifest}});
    VERIFY_OK(first);
    QVERIFY2(waitForEnd(*first) == u"SUCCEEDED", describe(*first).constData());
    QVERIFY(m_user->log(*first, onlyTask(*first)[u"id"_s].toInteger()).contains("dataset sum 6"));

    // The task read the folder laid out in the cache: hard links to the cached blobs.
    const QString folder = m_dir->filePath(u"work/cache/datasets/m-"_s + *manifest);
    const QString blob = m_dir->filePath(u"work/cache/blobs/"_s + numbersBlob);
    QCOMPARE(identityOfFile(folder + u"/numbers.txt"_s), identityOfFile(blob));
    QVERIFY(linkCount(blob) >= 2);
    const quint64 folderBefore = identityOfFile(folder);

    // A second job on the same dataset uses the same folder; nothing is fetched again.
    const ddl::Result<QString> second = m_user->submitWithDataset(
        jobSpec(u"ddl"_s, u"manifest-2"_s), m_package, {{u"manifest"_s, *manifest}});
    VERIFY_OK(second);
    QVERIFY2(waitForEnd(*second) == u"SUCCEEDED", describe(*second).constData());
    QVERIFY(m_user->log(*second, onlyTask(*second)[u"id"_s].toInteger()).contains("dataset sum 6"));
    QCOMPARE(fetchesOf(*manifest), 1);
    QCOMPARE(fetchesOf(numbersBlob), 1);
    QCOMPARE(identityOfFile(folder), folderBefore);
}

void tst_WorkerAgent::tinyCacheStillRunsTasks()
{
    const ddl::Result<QString> manifest = uploadManifestDataset();
    VERIFY_OK(manifest);
    WorkerConfig tiny = config();
    tiny.cacheSizeBytes = 1; // nothing fits: only what a running task uses is kept
    startAgent(tiny);
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> uuid = m_user->submitWithDataset(
        jobSpec(u"ddl"_s, u"tiny"_s), m_package, {{u"manifest"_s, *manifest}});
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid) == u"SUCCEEDED", describe(*uuid).constData());
    QVERIFY(m_user->log(*uuid, onlyTask(*uuid)[u"id"_s].toInteger()).contains("dataset sum 6"));

    // Once the task has ended, the cache lets go of all of it, and says so.
    QTRY_VERIFY(QDir(m_dir->filePath(u"work/cache/blobs"_s)).isEmpty());
    QVERIFY(!QFileInfo::exists(m_dir->filePath(u"work/cache/datasets/m-"_s + *manifest)));
    QVERIFY2(
        std::any_of(s_workerMessages.cbegin(),
                    s_workerMessages.cend(),
                    [&](const QString &m) { return m.startsWith(u"evicted blob "_s + *manifest); }),
        qPrintable(s_workerMessages.join(u'\n')));
}

void tst_WorkerAgent::cancelFromHeartbeatEndsTheProcessTree()
{
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> uuid = m_user->submit(
        jobSpec(u"openpai"_s,
                u"sleeper"_s,
                1,
                0,
                u"echo started; sleep 300 & sleep 301 & echo both asleep; wait; echo never"_s),
        m_package);
    VERIFY_OK(uuid);
    QTRY_VERIFY_WITH_TIMEOUT(!onlyTask(*uuid).isEmpty(), 5000);
    const qint64 taskId = onlyTask(*uuid)[u"id"_s].toInteger();
    QTRY_VERIFY_WITH_TIMEOUT(m_user->log(*uuid, taskId).contains("both asleep\n"), 20000);

    // The task's processes: whatever this process (the worker) started, the server aside.
    QSet<qint64> task = descendantsOf(QCoreApplication::applicationPid());
    task -= descendantsOf(m_server->processId());
    task.remove(m_server->processId());
    QStringList commands;
    for (qint64 pid : std::as_const(task))
        commands << QString::fromUtf8(commandOf(pid));
    QVERIFY2(commands.count(u"sleep"_s) == 2, qPrintable(commands.join(u' ')));

    // The owner cancels the job; the worker learns it from its next heartbeat.
    const ddl::Status cancelled = m_user->cancel(*uuid);
    VERIFY_OK(cancelled);
    QCOMPARE(m_user->jobState(*uuid), u"STOPPED"_s);
    QTRY_COMPARE_WITH_TIMEOUT(onlyTask(*uuid)[u"state"_s].toString(), u"STOPPED"_s, 15000);
    QTRY_VERIFY(m_events.contains(u"end:%1:STOPPED"_s.arg(taskId)));
    for (qint64 pid : std::as_const(task))
        QTRY_VERIFY2(!processRuns(pid), commandOf(pid).constData());
    const QByteArray log = m_user->log(*uuid, taskId);
    QVERIFY2(!log.contains("\nnever\n"), log.constData());
    QVERIFY(log.contains("cancelled"));
    QVERIFY(m_user->artifacts(*uuid).isEmpty());
}

void tst_WorkerAgent::requirementsRunInAVenv()
{
    DDL_REQUIRE_PREREQUISITE(pythonCanImport(u"venv, ensurepip, numpy"_s),
                             u"needs python3-venv (ensurepip) and python3-numpy for the worker's "
                             u"python3: the venv is built offline from the system's packages"_s);
    const ddl::Result<QString> package =
        uploadArchive({{u"requirements.txt"_s, "numpy\n"},
                       {u"main.py"_s,
                        "import sys\nimport numpy\n"
                        "def main(dataset_dir, model_output_dir):\n"
                        "    print('prefix', sys.prefix)\n"}});
    VERIFY_OK(package);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> uuid = m_user->submit(jobSpec(u"ddl"_s, u"venv"_s), *package);
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid, 120000) == u"SUCCEEDED", describe(*uuid).constData());
    const QByteArray log = m_user->log(*uuid, onlyTask(*uuid)[u"id"_s].toInteger());
    QVERIFY(log.contains("Python environment ready"));
    QVERIFY(log.contains(QByteArray("prefix " + m_dir->filePath(u"work/venvs/"_s).toUtf8())));
}

void tst_WorkerAgent::runsTheIrisExample()
{
    DDL_REQUIRE_PREREQUISITE(pythonCanImport(u"numpy"_s),
                             u"needs python3-numpy for the worker's python3"_s);
    const QString example = qEnvironmentVariable("DDL_SOURCE_DIR", QStringLiteral(DDL_SOURCE_DIR)) +
                            u"/examples/iris-numpy"_s;
    QFile mainPy(example + u"/main.py"_s);
    QFile csv(example + u"/data/iris.csv"_s);
    QVERIFY(mainPy.open(QIODevice::ReadOnly) && csv.open(QIODevice::ReadOnly));
    const ddl::Result<QString> package = uploadArchive({{u"main.py"_s, mainPy.readAll()}});
    VERIFY_OK(package);
    const ddl::Result<QString> dataset = uploadArchive({{u"iris.csv"_s, csv.readAll()}});
    VERIFY_OK(dataset);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> uuid =
        m_user->submit(jobSpec(u"ddl"_s, u"iris"_s), *package, *dataset);
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid, 60000) == u"SUCCEEDED", describe(*uuid).constData());
    const QByteArray log = m_user->log(*uuid, onlyTask(*uuid)[u"id"_s].toInteger());
    QVERIFY(log.contains("120 training and 30 test flowers"));
    QVERIFY(log.contains("DDL_METRIC {\"step\": 400, \"loss\": "));
    QVERIFY(log.contains("final test accuracy: "));
    QStringList paths;
    for (const QJsonValue &file : m_user->artifacts(*uuid))
        paths << file[u"path"_s].toString();
    paths.sort();
    QCOMPARE(paths, (QStringList{u"metrics.json"_s, u"model.npz"_s}));
}

void tst_WorkerAgent::stdoutAndStderrAreKeptApart()
{
    // Both streams write at once, stdout in pieces (flushed mid-line), stderr whole lines.
    const ddl::Result<QString> package =
        uploadArchive({{u"main.py"_s,
                        "import sys, time\n"
                        "def main(dataset_dir, model_output_dir):\n"
                        "    for i in range(40):\n"
                        "        sys.stdout.write('out %d ' % i); sys.stdout.flush()\n"
                        "        sys.stderr.write('err %d\\n' % i); sys.stderr.flush()\n"
                        "        if i % 10 == 0: time.sleep(0.05)\n"
                        "        sys.stdout.write('done\\n'); sys.stdout.flush()\n"
                        "    sys.stderr.write('no newline at the end'); sys.stderr.flush()\n"}});
    VERIFY_OK(package);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> uuid = m_user->submit(jobSpec(u"ddl"_s, u"streams"_s), *package);
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid) == u"SUCCEEDED", describe(*uuid).constData());
    const qint64 taskId = onlyTask(*uuid)[u"id"_s].toInteger();
    QByteArray expectedOut;
    QByteArray expectedErr;
    for (int i = 0; i < 40; ++i) {
        expectedOut += "out " + QByteArray::number(i) + " done\n";
        expectedErr += "err " + QByteArray::number(i) + "\n";
    }
    expectedErr += "no newline at the end";
    QCOMPARE(m_user->log(*uuid, taskId, u"stdout"_s), expectedOut);
    QCOMPARE(m_user->log(*uuid, taskId, u"stderr"_s), expectedErr);
    // The merged log: whole lines only, each stream's in its order, the worker's around them.
    const QByteArray merged = m_user->log(*uuid, taskId);
    QByteArray out;
    QByteArray err;
    for (const QByteArray &line : merged.split('\n')) {
        if (line.startsWith("out "))
            out += line + '\n';
        else if (line.startsWith("err ") || line == "no newline at the end")
            err += line + '\n';
        else
            QVERIFY2(line.isEmpty() || line.startsWith("[ddl-worker] "), line.constData());
    }
    QCOMPARE(out, expectedOut);
    QCOMPARE(err, expectedErr + '\n');
    QVERIFY(merged.contains("no newline at the end\n[ddl-worker] process finished: exit 0\n"));
}

void tst_WorkerAgent::failuresAreReportedFailed()
{
    const ddl::Result<QString> raising =
        uploadArchive({{u"main.py"_s, "def main(dataset_dir, model_output_dir):\n    1 / 0\n"}});
    VERIFY_OK(raising);
    // The server stores any bytes as a blob; the worker finds this one is no archive.
    const ddl::Result<QString> notAnArchive = m_user->upload("these bytes are no tar.zst\n");
    VERIFY_OK(notAnArchive);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    const ddl::Result<QString> divides = m_user->submit(jobSpec(u"ddl"_s, u"divides"_s), *raising);
    VERIFY_OK(divides);
    const ddl::Result<QString> unpacks =
        m_user->submit(jobSpec(u"ddl"_s, u"unpacks"_s), *notAnArchive);
    VERIFY_OK(unpacks);

    QVERIFY2(waitForEnd(*divides) == u"FAILED", describe(*divides).constData());
    QJsonObject task = onlyTask(*divides);
    QCOMPARE(task[u"state"_s].toString(), u"FAILED"_s);
    QCOMPARE(task[u"exit_code"_s].toInt(), 1);
    QVERIFY(m_user->log(*divides, task[u"id"_s].toInteger())
                .contains("ZeroDivisionError: division by zero"));

    QVERIFY2(waitForEnd(*unpacks) == u"FAILED", describe(*unpacks).constData());
    task = onlyTask(*unpacks);
    QVERIFY(task[u"exit_code"_s].isNull());
    QVERIFY2(task[u"message"_s].toString().contains(u"cannot extract the code package"),
             qPrintable(task[u"message"_s].toString()));
    QVERIFY(m_user->log(*unpacks, task[u"id"_s].toInteger())
                .contains("[ddl-worker] error: cannot extract the code package"));
}

void tst_WorkerAgent::tasksRunningAtOnceUploadTheSameOutput()
{
    // Both tasks of a job wait for one moment (named by their dataset), then write the same
    // output and end together: the worker uploads one blob twice at once under its token (into
    // worker-0/ and worker-1/ of the artifacts). Both uploads must succeed.
    const ddl::Result<QString> package =
        uploadArchive({{u"main.py"_s,
                        "import os, time\n"
                        "def main(dataset_dir, model_output_dir):\n"
                        "    with open(os.path.join(dataset_dir, 'release_at.txt')) as f:\n"
                        "        release_at = float(f.read())\n"
                        "    time.sleep(max(0.0, release_at - time.time()))\n"
                        "    with open(os.path.join(model_output_dir, 'shared.bin'), 'wb') as f:\n"
                        "        f.write(bytes(range(256)) * 8192)\n"}});
    VERIFY_OK(package);
    startAgent(config());
    QVERIFY(m_agent->start().ok());
    QTRY_VERIFY(!m_agent->workerId().isEmpty());
    const qint64 releaseAtMs = QDateTime::currentMSecsSinceEpoch() + 3000;
    const ddl::Result<QString> releaseAt =
        uploadArchive({{u"release_at.txt"_s, QByteArray::number(releaseAtMs / 1000.0, 'f', 3)}});
    VERIFY_OK(releaseAt);
    const ddl::Result<QString> uuid =
        m_user->submit(jobSpec(u"ddl"_s, u"twins"_s, 2), *package, *releaseAt);
    VERIFY_OK(uuid);
    QVERIFY2(waitForEnd(*uuid) == u"SUCCEEDED", describe(*uuid).constData());
    // Had a task started after that moment, it would not have raced the other.
    for (const QJsonValue &task : m_user->tasks(*uuid)) {
        QVERIFY(QDateTime::fromString(task[u"started_at"_s].toString(), Qt::ISODateWithMs)
                    .toMSecsSinceEpoch() < releaseAtMs);
    }

    QByteArray expected;
    for (int i = 0; i < 8192; ++i) {
        for (int byte = 0; byte < 256; ++byte)
            expected += char(byte);
    }
    // Each task's copy lies in its own folder of the job's artifacts.
    const QJsonArray files = m_user->artifacts(*uuid);
    QCOMPARE(files.size(), 2);
    QCOMPARE(files.at(0)[u"path"_s].toString(), u"worker-0/shared.bin"_s);
    QCOMPARE(files.at(1)[u"path"_s].toString(), u"worker-1/shared.bin"_s);
    QCOMPARE(m_user->artifact(*uuid, u"worker-0/shared.bin"_s), expected);
    QCOMPARE(m_user->artifact(*uuid, u"worker-1/shared.bin"_s), expected);
}

void tst_WorkerAgent::reenrollsOn401AndReusesItsIdentity()
{
    // A backup of the server's data dir from before the worker enrolled: it knows the enrollment
    // token and the certificate, but not the worker.
    const quint16 port = m_server->port();
    m_server->stop();
    const QString backup = m_dir->filePath(u"backup"_s);
    QVERIFY(ServerProcess::copyDataDir(m_server->dataDir(), backup));
    QString started = m_server->start(port);
    QVERIFY2(started.isEmpty(), qPrintable(started));

    startAgent(config());
    QSignalSpy enrolled(m_agent.get(), &WorkerAgent::enrolled);
    QSignalSpy fatal(m_agent.get(), &WorkerAgent::fatalError);
    QVERIFY(m_agent->start().ok());
    QVERIFY(enrolled.wait(10000));
    const QString firstToken = savedToken();
    QVERIFY(!firstToken.isEmpty());

    // The server comes back from that backup, at the same address: the worker's token is
    // unknown there, the next heartbeat gets 401, and the worker enrolls again.
    m_server = std::make_unique<ServerProcess>(backup);
    started = m_server->start(port);
    QVERIFY2(started.isEmpty(), qPrintable(started));
    QTRY_COMPARE_WITH_TIMEOUT(enrolled.size(), 2, 15000);
    QVERIFY(fatal.isEmpty());
    QTRY_VERIFY(!savedToken().isEmpty() && savedToken() != firstToken);
    QList<QVariantMap> workers = m_server->workers();
    QCOMPARE(workers.size(), 1);
    QCOMPARE(workers.first().value(u"id"_s).toString(), m_agent->workerId());
    qint64 lastSeen = workers.first().value(u"last_seen"_s).toLongLong();
    QTRY_VERIFY(m_server->workers().value(0).value(u"last_seen"_s).toLongLong() > lastSeen);

    // A restarted worker reuses worker.json: no enrollment token needed, no new enrollment, and
    // its heartbeats are accepted (a 401 without a token would be fatal).
    m_agent.reset();
    WorkerConfig restarted = config();
    restarted.enrollToken.clear();
    startAgent(restarted);
    QSignalSpy enrolledAgain(m_agent.get(), &WorkerAgent::enrolled);
    QSignalSpy fatalAgain(m_agent.get(), &WorkerAgent::fatalError);
    lastSeen = m_server->workers().value(0).value(u"last_seen"_s).toLongLong();
    QVERIFY(m_agent->start().ok());
    QTRY_VERIFY(m_server->workers().value(0).value(u"last_seen"_s).toLongLong() > lastSeen + 300);
    QVERIFY(enrolledAgain.isEmpty());
    QVERIFY2(fatalAgain.isEmpty(), qPrintable(fatalAgain.value(0).value(0).toString()));
    QCOMPARE(m_server->workers().size(), 1);
    QCOMPARE(m_agent->workerId(), workers.first().value(u"id"_s).toString());
}

void tst_WorkerAgent::refusedEnrollmentIsFatal()
{
    WorkerConfig wrongToken = config();
    wrongToken.enrollToken = u"ddle_not-the-token"_s;
    startAgent(wrongToken);
    QSignalSpy fatal(m_agent.get(), &WorkerAgent::fatalError);
    QVERIFY(m_agent->start().ok());
    QVERIFY(fatal.wait(10000));
    const QString message = fatal.first().first().toString();
    QVERIFY2(message.contains(u"refused"), qPrintable(message));
    QVERIFY(!message.contains(u"not-the-token")); // tokens are never shown
    QVERIFY(!QFile::exists(m_dir->filePath(u"work/worker.json"_s)));
    QVERIFY(m_server->workers().isEmpty());
}

void tst_WorkerAgent::noTokenAndNoIdentityCannotStart()
{
    WorkerConfig noToken = config();
    noToken.enrollToken.clear();
    startAgent(noToken);
    const ddl::Status started = m_agent->start();
    QVERIFY(!started.ok());
    QCOMPARE(started.error().code, u"no_token"_s);
    QVERIFY(started.error().message.contains(u"--token"));
}

QTEST_GUILESS_MAIN(tst_WorkerAgent)
#include "tst_workeragent.moc"
