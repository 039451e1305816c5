// What the Slurm backend reads from Slurm's client commands and writes for sbatch: sinfo and
// squeue --json in 22.05's layout (openapi/v0.0.38, as Debian 12 ships it) and in the array
// forms of later releases, sbatch --parsable, and the batch script's mapping of tasks to nodes
// (run by bash with a stand-in scontrol and srun: a multi-node allocation cannot be had here).
#include "slurm/slurmjson.h"
#include "slurm/slurmscript.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

class TestSlurmJson : public QObject
{
    Q_OBJECT

private slots:
    void sinfoCapacity_data();
    void sinfoCapacity();
    void sinfoWithoutNodesNamesTheVersion();
    void squeueStates_data();
    void squeueStates();
    void sbatchParsable();
    void stepEnvironmentNamesTheAllocationsNodes();
    void batchScriptMapsTasksToNodes_fakeScontrolAndSrun();
};

static QByteArray sinfoOf(const QByteArray &nodes)
{
    return R"({"meta": {"plugin": {"type": "openapi/v0.0.38"}, "Slurm": {"release": "22.05.8"}},
              "errors": [], "nodes": [)" +
           nodes + "]}";
}

void TestSlurmJson::sinfoCapacity_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("partition");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("cpus");
    QTest::addColumn<qint64>("memoryMb");
    QTest::addColumn<int>("gpus");

    const QByteArray a = R"({"name": "a", "cpus": 8, "real_memory": 32000, "gres": "gpu:2",
        "state": "idle", "state_flags": [], "partitions": ["debug", "gpu"]})";
    const QByteArray b = R"({"name": "b", "cpus": 16, "real_memory": 64000,
        "gres": "gpu:a100:4(S:0-1),shard:8", "state": "mixed", "state_flags": [],
        "partitions": ["gpu"]})";
    const QByteArray drained = R"({"name": "c", "cpus": 4, "real_memory": 1000, "gres": "",
        "state": "idle", "state_flags": ["DRAIN"], "partitions": ["gpu"]})";
    const QByteArray later = R"({"name": "d", "cpus": 2, "real_memory": 500, "gres": "gpu:1",
        "state": ["IDLE"], "partitions": ["gpu"]})";
    QTest::newRow("one partition")
        << sinfoOf(a + "," + b) << u"debug"_s << 1 << 8 << qint64(32000) << 2;
    QTest::newRow("typed GRES") << sinfoOf(a + "," + b) << u"gpu"_s << 2 << 24 << qint64(96000)
                                << 6;
    QTest::newRow("drained node left out")
        << sinfoOf(b + "," + drained) << u"gpu"_s << 1 << 16 << qint64(64000) << 4;
    QTest::newRow("23.02 state array") << sinfoOf(later) << u"gpu"_s << 1 << 2 << qint64(500) << 1;
}

void TestSlurmJson::sinfoCapacity()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, partition);
    const ddl::Result<SlurmCapacity> capacity = parseSinfoJson(json, partition);
    QVERIFY2(capacity, capacity ? "" : qPrintable(capacity.error().message));
    QTEST(capacity->nodes, "nodes");
    QTEST(capacity->cpus, "cpus");
    QTEST(capacity->memoryMb, "memoryMb");
    QTEST(capacity->gpus, "gpus");
}

void TestSlurmJson::sinfoWithoutNodesNamesTheVersion()
{
    const ddl::Result<SlurmCapacity> odd = parseSinfoJson(
        R"({"meta": {"plugin": {"type": "openapi/v9.9"}, "Slurm": {"release": "99.1"}}})", u"x"_s);
    QVERIFY(!odd);
    QVERIFY2(odd.error().message.contains(u"99.1"_s) && odd.error().message.contains(u"v9.9"_s),
             qPrintable(odd.error().message));
    const ddl::Result<SlurmCapacity> none = parseSinfoJson(sinfoOf({}), u"nowhere"_s);
    QVERIFY(!none);
    QVERIFY2(none.error().message.contains(u"'nowhere'"_s), qPrintable(none.error().message));
    QVERIFY(!parseSinfoJson("sinfo: error: plugin not found", {}));
}

void TestSlurmJson::squeueStates_data()
{
    QTest::addColumn<QByteArray>("job");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("pending");
    QTest::addColumn<bool>("final");
    QTest::addColumn<int>("exitCode");

    QTest::newRow("22.05 pending") << QByteArray(R"({"job_id": 7, "job_state": "PENDING",
        "state_reason": "Resources", "nodes": "", "exit_code": 0})")
                                   << u"PENDING"_s << u"Resources"_s << true << false << 0;
    QTest::newRow("22.05 cancelled") << QByteArray(R"({"job_id": 7, "job_state": "CANCELLED",
        "state_reason": "None", "nodes": "n1", "exit_code": 0})")
                                     << u"CANCELLED"_s << u"None"_s << false << true << 0;
    QTest::newRow("23.02 arrays") << QByteArray(R"({"job_id": 7, "job_state": ["FAILED"],
        "state_reason": "NonZeroExitCode", "nodes": "n1",
        "exit_code": {"status": ["EXITED"], "return_code": {"set": true, "number": 3}}})")
                                  << u"FAILED"_s << u"NonZeroExitCode"_s << false << true << 3;
    QTest::newRow("running") << QByteArray(R"({"job_id": 7, "job_state": "RUNNING",
        "state_reason": "None", "nodes": "n[1-2]", "exit_code": 0})")
                             << u"RUNNING"_s << u"None"_s << false << false << 0;
}

void TestSlurmJson::squeueStates()
{
    QFETCH(QByteArray, job);
    const ddl::Result<QList<SlurmJobStatus>> jobs =
        parseSqueueJson(R"({"meta": {}, "errors": [], "jobs": [)" + job + "]}");
    QVERIFY(jobs);
    QCOMPARE(jobs->size(), 1);
    const SlurmJobStatus &status = jobs->first();
    QCOMPARE(status.jobId, qint64(7));
    QTEST(status.state, "state");
    QTEST(status.reason, "reason");
    QTEST(status.isPending(), "pending");
    QTEST(status.isFinal(), "final");
    QTEST(status.exitCode.value_or(-1), "exitCode");
}

void TestSlurmJson::sbatchParsable()
{
    QCOMPARE(*parseSbatchParsable("42\n"), qint64(42));
    QCOMPARE(*parseSbatchParsable("42;cluster\n"), qint64(42));
    const ddl::Result<qint64> refused = parseSbatchParsable("sbatch: error: Batch job submission");
    QVERIFY(!refused);
    QVERIFY(refused.error().message.contains(u"not a job id"_s));
    QCOMPARE(describeSlurmReason(u"Resources"_s),
             u"Resources (waiting for resources to become free)"_s);
    QCOMPARE(describeSlurmReason(u"SomethingNew"_s), u"SomethingNew"_s);
}

void TestSlurmJson::stepEnvironmentNamesTheAllocationsNodes()
{
    SlurmStepLaunch launch;
    launch.workerAddress = u"10.0.0.5"_s;
    launch.memberPorts = {4100, 4101};
    launch.memberHostKeys = {u"PAI_HOST_IP_w_0"_s, u"PAI_HOST_IP_w_1"_s};
    launch.stepIndex = 1;
    launch.environment.insert(u"PAI_TASK_ROLE_0_HOST_LIST"_s, u"10.0.0.5:4100,10.0.0.5:4101"_s);
    launch.environment.insert(u"PAI_CURRENT_CONTAINER_IP"_s, u"10.0.0.5"_s);
    launch.environment.insert(u"PAI_HOST_IP_w_0"_s, u"10.0.0.5"_s);
    launch.environment.insert(u"OTHER"_s, u"10.0.0.5:41000 $HOME \"q\" `x`"_s);
    launch.environment.insert(u"CUDA_VISIBLE_DEVICES"_s, u"0"_s);
    launch.environment.insert(u"not a name"_s, u"x"_s);
    const QString text = QString::fromUtf8(slurmStepEnvironment(launch));
    QVERIFY2(text.contains(u"export PAI_TASK_ROLE_0_HOST_LIST=\"${DDL_SLURM_NODE_0}:4100,"
                           "${DDL_SLURM_NODE_1}:4101\""_s),
             qPrintable(text));
    QVERIFY(text.contains(u"export PAI_CURRENT_CONTAINER_IP=\"${DDL_SLURM_NODE_1}\""_s));
    QVERIFY(text.contains(u"export PAI_HOST_IP_w_0=\"${DDL_SLURM_NODE_0}\""_s));
    // Another port of the same address is not a member's; shell characters stay literal.
    QVERIFY2(text.contains(u"export OTHER=\"10.0.0.5:41000 \\$HOME \\\"q\\\" \\`x\\`\""_s),
             qPrintable(text));
    QVERIFY(!text.contains(u"CUDA_VISIBLE_DEVICES"_s)); // Slurm's binding holds
    QVERIFY(!text.contains(u"not a name"_s));
}

void TestSlurmJson::batchScriptMapsTasksToNodes_fakeScontrolAndSrun()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // scontrol expands the node list; srun prints which node each step was sent to.
    const QString scontrol = dir.filePath(u"scontrol"_s);
    const QString srun = dir.filePath(u"srun"_s);
    for (const auto &[path, body] :
         {std::pair{scontrol, QByteArray("#!/bin/sh\nprintf 'n1\\nn2\\nn3\\n'\n")},
          std::pair{srun,
                    QByteArray("#!/bin/sh\nfor a; do case $a in --nodelist=*) echo "
                               "\"${a#--nodelist=}\";; esac; done\n")}}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(body);
        file.close();
        QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }
    SlurmJobPlan plan;
    plan.folder = dir.path();
    plan.srun = srun;
    plan.scontrol = scontrol;
    for (int i = 0; i < 5; ++i) {
        QVERIFY(QDir(dir.path()).mkdir(u"step%1"_s.arg(i)));
        plan.steps << SlurmStepFiles::inFolder(dir.filePath(u"step%1"_s.arg(i)));
    }
    QProcess bash;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"SLURM_JOB_NODELIST"_s, u"n[1-3]"_s);
    environment.insert(u"SLURM_TASKS_PER_NODE"_s, u"2(x2),1"_s);
    bash.setProcessEnvironment(environment);
    bash.start(u"/bin/bash"_s, {u"-c"_s, QString::fromUtf8(plan.batchScript())});
    QVERIFY(bash.waitForFinished(20000));
    QCOMPARE(bash.exitCode(), 0);
    QStringList nodes =
        QString::fromUtf8(bash.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
    nodes.sort(); // the steps start in the background
    QCOMPARE(nodes, (QStringList{u"n1"_s, u"n1"_s, u"n2"_s, u"n2"_s, u"n3"_s}));
    const QStringList arguments = plan.sbatchArguments();
    QVERIFY(arguments.contains(u"--ntasks=5"_s));
    QVERIFY(arguments.contains(u"--export=NONE"_s));
    for (int i = 0; i < 5; ++i) { // each step's exit status, written when its srun returned
        QFile exitFile(plan.steps[i].exitFile);
        QVERIFY(exitFile.open(QIODevice::ReadOnly));
        QCOMPARE(exitFile.readAll().trimmed(), QByteArray("0"));
    }
}

QTEST_GUILESS_MAIN(TestSlurmJson)
#include "tst_slurmjson.moc"
