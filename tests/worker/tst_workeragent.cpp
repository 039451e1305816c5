// The whole worker against an in-process fake of the server's worker API: enrollment, leases,
// code and data through the cache, real python3 and /bin/sh tasks, logs, artifacts, cancel.
#include "agent/workeragent.h"
#include "fakeserver.h"
#include "packaging/directoryarchiver.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

namespace {

const QByteArray TrainingMain = R"(
import json, os, time

def main(dataset_dir, model_output_dir):
    with open(os.path.join(dataset_dir, "numbers.txt")) as f:
        print("dataset sum", sum(int(x) for x in f.read().split()))
    print("gpus", repr(os.environ.get("CUDA_VISIBLE_DEVICES")))
    print("role", os.environ["PAI_TASK_ROLE_NAME"], "port set",
          os.environ["PAI_CURRENT_CONTAINER_PORT"] != "0")
    for step in range(3):
        print("DDL_METRIC " + json.dumps({"step": step, "loss": 1.0 / (step + 1)}))
    time.sleep(float(os.environ.get("SLEEP_SECONDS", "0")))
    os.makedirs(os.path.join(model_output_dir, "sub"))
    with open(os.path.join(model_output_dir, "model.txt"), "w") as f:
        f.write("weights")
    with open(os.path.join(model_output_dir, "sub", "metrics.json"), "w") as f:
        json.dump({"loss": 0.33}, f)
)";

// The venv and example tests need numpy for the worker's python (Debian: python3-numpy).
bool pythonHasNumpy()
{
    static const bool has = [] {
        QProcess probe;
        probe.start(defaultPythonInterpreter(), {u"-c"_s, u"import numpy, venv"_s});
        return probe.waitForFinished(30000) && probe.exitStatus() == QProcess::NormalExit &&
               probe.exitCode() == 0;
    }();
    return has;
}

QString stateOf(const QJsonObject &report)
{
    return report.value(u"state"_s).toString();
}

} // namespace

class tst_WorkerAgent : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void runsADdlTaskEndToEnd();
    void cachesCodeAndDataAcrossTasks();
    void cancelFromHeartbeatStopsTheTask();
    void requirementsRunInAVenv();
    void runsTheIrisExample();
    void failuresAreReportedFailed();
    void reenrollsOn401AndReusesItsIdentity();
    void refusedEnrollmentIsFatal();
    void noTokenAndNoIdentityCannotStart();

private:
    WorkerConfig config() const;
    QString addArchive(const QMap<QString, QByteArray> &files);
    QJsonObject lease(qint64 taskId, const QString &kind = u"ddl"_s) const;
    QString finalState(qint64 taskId) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeServer> m_server;
    std::unique_ptr<WorkerAgent> m_agent;
    QString m_package;
    QString m_dataset;
    int m_archives = 0;
};

void tst_WorkerAgent::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<FakeServer>();
    m_package = addArchive({{u"main.py"_s, TrainingMain}});
    m_dataset = addArchive({{u"numbers.txt"_s, "1 2 3\n"}});
    QVERIFY(!m_package.isEmpty() && !m_dataset.isEmpty());
}

void tst_WorkerAgent::cleanup()
{
    m_agent.reset();
    m_server.reset();
}

WorkerConfig tst_WorkerAgent::config() const
{
    WorkerConfig config;
    config.serverUrl = m_server->url();
    config.enrollToken = m_server->enrollToken;
    config.workDir = m_dir->filePath(u"work"_s);
    config.name = u"test-worker"_s;
    config.gpus = 2;
    config.slotCount = 2;
    config.heartbeatIntervalMs = 200;
    config.leaseIntervalMs = 100;
    config.logFlushIntervalMs = 50;
    config.killGraceMs = 2000;
    config.enrollRetryMs = 500;
    config.applyDefaults();
    return config;
}

QString tst_WorkerAgent::addArchive(const QMap<QString, QByteArray> &files)
{
    const QString source = m_dir->filePath(u"source-%1"_s.arg(++m_archives));
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QString path = source + u'/' + it.key();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(it.value());
    }
    const auto archive = ddl::DirectoryArchiver().archive(
        source, m_dir->filePath(u"archive-%1.tar.zst"_s.arg(m_archives)));
    if (!archive)
        return {};
    QFile file(archive->archivePath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return m_server->addBlob(file.readAll());
}

QJsonObject tst_WorkerAgent::lease(qint64 taskId, const QString &kind) const
{
    return QJsonObject{
        {u"task_id"_s, taskId},
        {u"job_uuid"_s, u"5f0c-uuid"_s},
        {u"job_name"_s, u"e2e"_s},
        {u"kind"_s, kind},
        {u"attempt"_s, 1},
        {u"role"_s, u"worker"_s},
        {u"role_index"_s, 0},
        {u"command"_s, QString()},
        {u"gpus"_s, 1},
        {u"cpus"_s, 1},
        {u"memory_mb"_s, 512},
        {u"package_sha256"_s, m_package},
        {u"dataset_sha256"_s, m_dataset},
        {u"env"_s,
         QJsonObject{{u"PAI_JOB_NAME"_s, u"e2e"_s},
                     {u"PAI_TASK_ROLE_NAME"_s, u"worker"_s},
                     {u"PAI_TASK_ROLE_INDEX"_s, u"0"_s},
                     {u"PAI_TASKS_NUM"_s, u"1"_s}}},
    };
}

QString tst_WorkerAgent::finalState(qint64 taskId) const
{
    const QList<QJsonObject> reports = m_server->states.value(taskId);
    if (reports.isEmpty() || stateOf(reports.last()) == u"RUNNING")
        return {};
    return stateOf(reports.last());
}

void tst_WorkerAgent::runsADdlTaskEndToEnd()
{
    m_agent = std::make_unique<WorkerAgent>(config());
    QSignalSpy finished(m_agent.get(), &WorkerAgent::taskFinished);
    QVERIFY(m_agent->start().ok());
    QTRY_COMPARE(m_server->enrollCount, 1);

    const QJsonObject enrollment = m_server->enrollments.first();
    QCOMPARE(enrollment.value(u"name"_s).toString(), u"test-worker"_s);
    QCOMPARE(enrollment.value(u"gpus"_s).toInt(), 2);
    QCOMPARE(enrollment.value(u"slots"_s).toInt(), 2);
    QVERIFY(enrollment.value(u"cpus"_s).toInt() >= 1);
    QVERIFY(enrollment.value(u"memory_mb"_s).toInteger() > 0);
    QVERIFY(!enrollment.value(u"hostname"_s).toString().isEmpty());
    const QString identity = m_dir->filePath(u"work/worker.json"_s);
    QCOMPARE(QFile::permissions(identity),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                 QFileDevice::WriteUser);

    QJsonObject task = lease(17);
    QJsonObject env = task.value(u"env"_s).toObject();
    env.insert(u"SLEEP_SECONDS"_s, u"0.6"_s);
    task.insert(u"env"_s, env);
    m_server->queueLease(task);
    QTRY_COMPARE_WITH_TIMEOUT(finalState(17), u"SUCCEEDED"_s, 30000);
    QVERIFY(finished.wait(5000) || !finished.isEmpty());

    const QList<QJsonObject> reports = m_server->states.value(17);
    QCOMPARE(reports.size(), 2);
    QCOMPARE(stateOf(reports.first()), u"RUNNING"_s);
    QCOMPARE(reports.last().value(u"exit_code"_s).toInt(-1), 0);

    const QByteArray log = m_server->logs.value(17);
    QVERIFY2(log.contains("dataset sum 6"), log.constData());
    QVERIFY(log.contains("gpus '0'"));
    QVERIFY(log.contains("role worker port set True"));
    QVERIFY(log.contains("DDL_METRIC {\"step\": 2, \"loss\": 0.3333333333333333}"));
    QVERIFY(log.contains("[ddl-worker] final state SUCCEEDED (exit code 0)"));
    QFile localLog(m_dir->filePath(u"work/tasks/17/task.log"_s));
    QVERIFY(localLog.open(QIODevice::ReadOnly));
    QCOMPARE(localLog.readAll(), log);

    // Outputs are uploaded as blobs and registered before the final state is reported.
    const QJsonArray files = m_server->artifacts.value(17);
    QCOMPARE(files.size(), 2);
    QCOMPARE(files.at(0)[u"path"_s].toString(), u"model.txt"_s);
    QCOMPARE(files.at(1)[u"path"_s].toString(), u"sub/metrics.json"_s);
    QCOMPARE(files.at(0)[u"size"_s].toInt(), 7);
    QCOMPARE(m_server->uploaded.value(files.at(0)[u"sha256"_s].toString()), QByteArray("weights"));
    const QStringList &events = m_server->events;
    QVERIFY(events.indexOf(u"artifacts:17"_s) < events.indexOf(u"state:17:SUCCEEDED"_s));
    QVERIFY(events.lastIndexOf(u"log:17"_s) < events.indexOf(u"state:17:SUCCEEDED"_s));
    QVERIFY(events.indexOf(u"state:17:RUNNING"_s) < events.indexOf(u"artifacts:17"_s));

    // While it ran, heartbeats named it and leases asked for what was left.
    bool heartbeatNamedTask = false;
    for (const QJsonObject &heartbeat : std::as_const(m_server->heartbeats)) {
        if (heartbeat.value(u"running"_s).toArray().contains(17))
            heartbeatNamedTask = true;
        QCOMPARE(heartbeat.value(u"gpus"_s).toInt(), 2);
    }
    QVERIFY(heartbeatNamedTask);
    bool askedWithOneGpuLeft = false;
    for (const QJsonObject &request : std::as_const(m_server->leaseRequests)) {
        if (request.value(u"free_slots"_s).toInt() == 1 &&
            request.value(u"free_gpus"_s).toInt() == 1) {
            askedWithOneGpuLeft = true;
        }
    }
    QVERIFY(askedWithOneGpuLeft);
    QVERIFY(m_agent->taskIds().isEmpty());
}

void tst_WorkerAgent::cachesCodeAndDataAcrossTasks()
{
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());
    m_server->queueLease(lease(21));
    m_server->queueLease(lease(22)); // both at once: two slots, one GPU each
    QTRY_COMPARE_WITH_TIMEOUT(finalState(21), u"SUCCEEDED"_s, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(finalState(22), u"SUCCEEDED"_s, 30000);
    QVERIFY(m_server->logs.value(21).contains("gpus '0'") !=
            m_server->logs.value(22).contains("gpus '0'"));

    m_server->queueLease(lease(23));
    QTRY_COMPARE_WITH_TIMEOUT(finalState(23), u"SUCCEEDED"_s, 30000);
    QCOMPARE(m_server->blobRequests.value(m_package), 1);
    QCOMPARE(m_server->blobRequests.value(m_dataset), 1);
    QVERIFY(QFileInfo(m_dir->filePath(u"work/cache/datasets/"_s + m_dataset)).isDir());
    QVERIFY(QFileInfo(m_dir->filePath(u"work/cache/blobs/"_s + m_package)).isFile());
}

void tst_WorkerAgent::cancelFromHeartbeatStopsTheTask()
{
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());
    QJsonObject task = lease(31, u"openpai"_s);
    task.insert(u"command"_s, u"echo started; sleep 300 & sleep 300; echo never"_s);
    m_server->queueLease(task);
    QTRY_VERIFY_WITH_TIMEOUT(m_server->logs.value(31).contains("started\n"), 20000);
    QTRY_VERIFY(!m_server->states.value(31).isEmpty()); // RUNNING

    m_server->cancel.insert(31);
    QTRY_COMPARE_WITH_TIMEOUT(finalState(31), u"STOPPED"_s, 10000);
    QVERIFY(!m_server->logs.value(31).contains("\nnever\n"));
    QVERIFY(m_server->logs.value(31).contains("cancelled"));
    QVERIFY(!m_server->artifacts.contains(31));
}

void tst_WorkerAgent::requirementsRunInAVenv()
{
    if (!pythonHasNumpy())
        QSKIP("needs numpy and venv for the worker's python3");
    const QString package = addArchive({{u"requirements.txt"_s, "numpy\n"},
                                        {u"main.py"_s,
                                         "import sys\nimport numpy\n"
                                         "def main(dataset_dir, model_output_dir):\n"
                                         "    print('prefix', sys.prefix)\n"}});
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());
    QJsonObject task = lease(51);
    task.insert(u"package_sha256"_s, package);
    m_server->queueLease(task);
    QTRY_VERIFY_WITH_TIMEOUT(!finalState(51).isEmpty(), 180000);
    const QByteArray log = m_server->logs.value(51);
    QVERIFY2(finalState(51) == u"SUCCEEDED", log.constData());
    QVERIFY(log.contains("Python environment ready"));
    QVERIFY(log.contains(QByteArray("prefix " + m_dir->filePath(u"work/venvs/"_s).toUtf8())));
}

void tst_WorkerAgent::runsTheIrisExample()
{
    if (!pythonHasNumpy())
        QSKIP("needs numpy for the worker's python3");
    const QString example = qEnvironmentVariable("DDL_SOURCE_DIR", QStringLiteral(DDL_SOURCE_DIR)) +
                            u"/examples/iris-numpy"_s;
    QFile mainPy(example + u"/main.py"_s);
    QFile csv(example + u"/data/iris.csv"_s);
    QVERIFY(mainPy.open(QIODevice::ReadOnly) && csv.open(QIODevice::ReadOnly));
    const QString package = addArchive({{u"main.py"_s, mainPy.readAll()}});
    const QString dataset = addArchive({{u"iris.csv"_s, csv.readAll()}});
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());
    QJsonObject task = lease(61);
    task.insert(u"package_sha256"_s, package);
    task.insert(u"dataset_sha256"_s, dataset);
    m_server->queueLease(task);
    QTRY_VERIFY_WITH_TIMEOUT(!finalState(61).isEmpty(), 60000);
    const QByteArray log = m_server->logs.value(61);
    QVERIFY2(finalState(61) == u"SUCCEEDED", log.constData());
    QVERIFY(log.contains("120 training and 30 test flowers"));
    QVERIFY(log.contains("DDL_METRIC {\"step\": 400, \"loss\": "));
    QVERIFY(log.contains("final test accuracy: "));
    QStringList paths;
    for (const QJsonValue &file : m_server->artifacts.value(61))
        paths << file[u"path"_s].toString();
    QCOMPARE(paths, (QStringList{u"metrics.json"_s, u"model.npz"_s}));
}

void tst_WorkerAgent::failuresAreReportedFailed()
{
    const QString broken =
        addArchive({{u"main.py"_s, "def main(dataset_dir, model_output_dir):\n    1 / 0\n"}});
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());

    QJsonObject raising = lease(41);
    raising.insert(u"package_sha256"_s, broken);
    m_server->queueLease(raising);
    QJsonObject missing = lease(42);
    missing.insert(u"package_sha256"_s, QString(64, u'c'));
    m_server->queueLease(missing);

    QTRY_COMPARE_WITH_TIMEOUT(finalState(41), u"FAILED"_s, 30000);
    QCOMPARE(m_server->states.value(41).last().value(u"exit_code"_s).toInt(), 1);
    QVERIFY(m_server->logs.value(41).contains("ZeroDivisionError: division by zero"));

    QTRY_COMPARE_WITH_TIMEOUT(finalState(42), u"FAILED"_s, 30000);
    const QJsonObject report = m_server->states.value(42).last();
    QVERIFY(report.value(u"exit_code"_s).isNull());
    QVERIFY2(report.value(u"message"_s).toString().contains(u"cannot fetch the code package"),
             qPrintable(report.value(u"message"_s).toString()));
    QVERIFY(m_server->logs.value(42).contains("[ddl-worker] error: cannot fetch the code package"));
}

void tst_WorkerAgent::reenrollsOn401AndReusesItsIdentity()
{
    m_agent = std::make_unique<WorkerAgent>(config());
    QVERIFY(m_agent->start().ok());
    QTRY_COMPARE(m_server->enrollCount, 1);
    QTRY_VERIFY(m_server->heartbeats.size() >= 1);

    m_server->revokeWorkerToken();
    QTRY_COMPARE_WITH_TIMEOUT(m_server->enrollCount, 2, 5000);
    const auto savedToken = [this] {
        QFile identity(m_dir->filePath(u"work/worker.json"_s));
        if (!identity.open(QIODevice::ReadOnly))
            return QString();
        return QJsonDocument::fromJson(identity.readAll())[u"worker_token"_s].toString();
    };
    QTRY_COMPARE(savedToken(), u"worker-token-2"_s);
    const qsizetype beats = m_server->heartbeats.size();
    QTRY_VERIFY(m_server->heartbeats.size() > beats + 1);

    // A restarted worker reuses worker.json: no enrollment token needed, no new enrollment.
    m_agent.reset();
    WorkerConfig restarted = config();
    restarted.enrollToken.clear();
    m_agent = std::make_unique<WorkerAgent>(restarted);
    QVERIFY(m_agent->start().ok());
    const qsizetype before = m_server->heartbeats.size();
    QTRY_VERIFY(m_server->heartbeats.size() > before + 1);
    QCOMPARE(m_server->enrollCount, 2);
    QCOMPARE(m_agent->workerId(), u"7"_s);
}

void tst_WorkerAgent::refusedEnrollmentIsFatal()
{
    WorkerConfig wrongToken = config();
    wrongToken.enrollToken = u"not-the-token"_s;
    m_agent = std::make_unique<WorkerAgent>(wrongToken);
    QSignalSpy fatal(m_agent.get(), &WorkerAgent::fatalError);
    QVERIFY(m_agent->start().ok());
    QVERIFY(fatal.wait(5000));
    const QString message = fatal.first().first().toString();
    QVERIFY2(message.contains(u"refused"), qPrintable(message));
    QVERIFY(!message.contains(u"not-the-token")); // tokens are never shown
    QVERIFY(!QFile::exists(m_dir->filePath(u"work/worker.json"_s)));
}

void tst_WorkerAgent::noTokenAndNoIdentityCannotStart()
{
    WorkerConfig noToken = config();
    noToken.enrollToken.clear();
    m_agent = std::make_unique<WorkerAgent>(noToken);
    const ddl::Status started = m_agent->start();
    QVERIFY(!started.ok());
    QCOMPARE(started.error().code, u"no_token"_s);
    QVERIFY(started.error().message.contains(u"--token"));
}

QTEST_GUILESS_MAIN(tst_WorkerAgent)
#include "tst_workeragent.moc"
