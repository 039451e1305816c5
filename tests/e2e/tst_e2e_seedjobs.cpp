// The Paddle and ElasticDL command lines end to end: ddl-server and two ddl-workers as processes
// on loopback, and the `paddle` and `elasticdl` links to ddlcli run as their seeds write them.
// Their code folders are plain folders (no git), sent as they are on disk. A Paddle job of
// examples/ps-worker (1 pserver, 2 trainers) only succeeds when the trainers find the pserver in
// PAI_TASK_ROLE_0_HOST_LIST; an ElasticDL all-reduce job of examples/iris-numpy calls its
// --model_def function in each of 2 workers; an ElasticDL parameter-server job shows TF_CONFIG.
#include "clusterharness.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::Literals::StringLiterals;

static const QString User = u"dana"_s;
static const QString Email = u"dana@example.org"_s;

class TestE2eSeedJobs : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void paddleParameterServerJob();
    void elasticDlAllreduceJob();
    void elasticDlParameterServerTfConfig();
    void seedErrorsBeforeAnythingIsSent();
    void pythonDistTrain();

private:
    // Runs build/bin/<program> (a link to ddlcli) as the user, in workDir.
    CliRun seed(const QString &program,
                const QStringList &args,
                const QString &workDir = {},
                bool withServerVariable = true);
    // A copy of examples/<name> in a plain folder (no git repository around it).
    QString copyExample(const QString &name, const QString &folder);
    QString diagnostics(const QString &job);

    ClusterHarness m_cluster;
};

CliRun TestE2eSeedJobs::seed(const QString &program,
                             const QStringList &args,
                             const QString &workDir,
                             bool withServerVariable)
{
    QProcess process;
    QProcessEnvironment environment = m_cluster.cliEnvironment(User);
    if (!withServerVariable)
        environment.remove(u"DDL_SERVER"_s); // the server comes from $HOME/.paddle/config
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(workDir.isEmpty() ? m_cluster.path({}) : workDir);
    process.start(ClusterHarness::binary(program), args);
    process.closeWriteChannel();
    CliRun run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished(2000);
        run.err = program + u" timed out"_s;
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString TestE2eSeedJobs::copyExample(const QString &name, const QString &folder)
{
    const QString source = qEnvironmentVariable("DDL_SOURCE_DIR") + u"/examples/"_s + name;
    const QString target = m_cluster.path(folder);
    QDirIterator it(source, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString copy = target + u'/' + QDir(source).relativeFilePath(file);
        QDir().mkpath(QFileInfo(copy).absolutePath());
        if (!QFile::copy(file, copy))
            return {};
    }
    return target;
}

QString TestE2eSeedJobs::diagnostics(const QString &job)
{
    const CliRun progress = m_cluster.cli(User, {u"progress"_s, u"--job_uuid="_s + job});
    const CliRun logs = m_cluster.cli(User, {u"logs"_s, u"--job_uuid="_s + job});
    return progress.out + progress.err + u"\n--- logs ---\n"_s + logs.out.right(6000) +
           u"\n--- w1 ---\n"_s + m_cluster.workerLog(u"w1"_s).right(2000) + u"\n--- w2 ---\n"_s +
           m_cluster.workerLog(u"w2"_s).right(2000) + u"\n--- server ---\n"_s +
           m_cluster.serverLog().right(2000);
}

void TestE2eSeedJobs::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    // "python3 ..." and the DDL runner: the system's Python, which has numpy, comes first.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"PATH"_s,
                       u"/usr/local/bin:/usr/bin:/bin:"_s + environment.value(u"PATH"_s));
    for (const QString &name : {u"w1"_s, u"w2"_s}) {
        QVERIFY(m_cluster.startNamedWorker(
            name, {u"--slots"_s, u"2"_s, u"--advertise-address"_s, u"127.0.0.1"_s}, environment));
    }
    QVERIFY(m_cluster.registerAndLogin(User, u"dana-password"_s));
}

void TestE2eSeedJobs::paddleParameterServerJob()
{
    const QString package = copyExample(u"ps-worker"_s, u"paddle/ps_worker"_s);
    QVERIFY(!package.isEmpty());
    // The seed's client config names the server and the account; DDL_SERVER is not set.
    const QString configDir = m_cluster.path(u"users/"_s + User + u"/.paddle"_s);
    QVERIFY(QDir().mkpath(configDir));
    QFile config(configDir + u"/config"_s);
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("apiVersion: v1\ndockerRegistry:\n  domain: docker.io\npaddleServer: " +
                 m_cluster.serverUrl().toUtf8() + "\nusername: " + Email.toUtf8() + "\n");
    config.close();

    const QString workDir = m_cluster.path(u"paddle"_s);
    const CliRun submit = seed(u"paddle"_s,
                               {u"job"_s,
                                u"submit"_s,
                                u"--job-name=paddle-ps"_s,
                                u"--package-path=ps_worker"_s,
                                u"--entry-point=python3 worker.py"_s,
                                u"--pserver-entry-point=python3 ps.py"_s,
                                u"--trainers=2"_s,
                                u"--pservers=1"_s,
                                u"--trainer-cpu=1"_s,
                                u"--trainer-mem=512Mi"_s,
                                u"--pserver-cpu=500m"_s,
                                u"--pserver-mem=512Mi"_s,
                                u"--base-image:python3"_s,
                                u"--use-gpu=false"_s,
                                u"--env=DDL_PS_ROLE=pserver"_s,
                                u"--env"_s,
                                u"DDL_WORKER_ROLE=trainer"_s,
                                u"--input=ps_worker/data"_s,
                                u"--output=./model"_s},
                               workDir,
                               false);
    QVERIFY2(submit.exitCode == 0, qPrintable(submit.out + submit.err));
    QVERIFY2(submit.out.contains(u"job_type: openpai\njob_name: paddle-ps\n"_s),
             qPrintable(submit.out));
    // What was sent, and what the flags do here, is said.
    QVERIFY2(submit.err.contains(u"as it is on disk, not a git commit"_s), qPrintable(submit.err));
    QVERIFY2(submit.err.contains(u"note: --pserver-cpu=500m is booked as 1 whole CPU"_s),
             qPrintable(submit.err));
    QVERIFY2(submit.err.contains(u"dockerRegistry is accepted"_s), qPrintable(submit.err));

    const QString state = m_cluster.waitForJobEnd(User, u"paddle-ps"_s, 150000);
    QVERIFY2(state == u"SUCCEEDED"_s, qPrintable(state + u'\n' + diagnostics(u"paddle-ps"_s)));

    // paddle job status: one pserver and two trainers, all exited 0.
    const CliRun status =
        seed(u"paddle"_s, {u"job"_s, u"status"_s, u"paddle-ps"_s, u"--format=json"_s}, {}, false);
    QVERIFY2(status.exitCode == 0, qPrintable(status.out + status.err));
    const QJsonObject job = QJsonDocument::fromJson(status.out.toUtf8()).object();
    const QJsonArray tasks = job.value(u"tasks"_s).toArray();
    QCOMPARE(tasks.size(), 3);
    QStringList roles;
    for (const QJsonValue &value : tasks) {
        QCOMPARE(value.toObject().value(u"exit_code"_s).toInt(-1), 0);
        roles << value.toObject().value(u"role"_s).toString();
    }
    roles.sort();
    QCOMPARE(roles, (QStringList{u"pserver"_s, u"trainer"_s, u"trainer"_s}));
    const QJsonObject spec = job.value(u"spec"_s).toObject();
    QCOMPARE(spec.value(u"image"_s).toString(), u"python3"_s);
    QCOMPARE(spec.value(u"outputDir"_s).toString(), u"./model"_s);

    // The trainers found the pserver by the PAI_* host list; Paddle's variables were set.
    const CliRun logs = seed(u"paddle"_s, {u"job"_s, u"logs"_s, u"paddle-ps"_s}, {}, false);
    QCOMPARE(logs.exitCode, 0);
    QVERIFY2(logs.out.contains(u"connected to 1 parameter servers"_s),
             qPrintable(logs.out.right(3000)));
    QVERIFY2(logs.out.contains(u"DDL_METRIC {\"step\": 0, \"loss\": 1.098612}"_s),
             qPrintable(logs.out.right(3000)));

    const CliRun list = seed(u"paddle"_s, {u"job"_s, u"list"_s}, {}, false);
    QVERIFY2(list.exitCode == 0 && list.out.contains(u"paddle-ps"_s), qPrintable(list.out));
    const CliRun version = seed(u"paddle"_s, {u"version"_s}, {}, false);
    QVERIFY2(version.exitCode == 0 && version.out.contains(u"server: "_s),
             qPrintable(version.out + version.err));
    // A finished job has nothing to kill; the error says so and names the program.
    const CliRun kill = seed(u"paddle"_s, {u"job"_s, u"kill"_s, u"paddle-ps"_s}, {}, false);
    QCOMPARE(kill.exitCode, 1);
    QVERIFY2(kill.err.startsWith(u"paddle: error: "_s), qPrintable(kill.err));

    const QString dest = m_cluster.path(u"paddle-model"_s);
    const CliRun download =
        m_cluster.cli(User, {u"download"_s, u"--job_uuid=paddle-ps"_s, u"--dest="_s + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    QFile metricsFile(dest + u"/pserver-0/metrics.json"_s);
    QVERIFY(metricsFile.open(QIODevice::ReadOnly));
    const QJsonObject metrics = QJsonDocument::fromJson(metricsFile.readAll()).object();
    QCOMPARE(metrics.value(u"workers"_s).toInt(), 2);
    QCOMPARE(metrics.value(u"parameter_servers"_s).toInt(), 1);
    QVERIFY(metrics.value(u"test_accuracy"_s).toDouble() > 0.8);

    // Another account in the config is refused before anything is sent.
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write("apiVersion: v1\npaddleServer: " + m_cluster.serverUrl().toUtf8() +
                 "\nusername: someone@example.org\n");
    config.close();
    const CliRun other = seed(u"paddle"_s, {u"job"_s, u"list"_s}, {}, false);
    QCOMPARE(other.exitCode, 1);
    QVERIFY2(other.err.contains(u"names the user someone@example.org, but you are logged in"_s),
             qPrintable(other.err));
    QVERIFY(QFile::remove(config.fileName()));
}

// A model zoo module whose function prints what the task was told, then trains iris-numpy.
static const QByteArray EntryModule = R"(import json
import os

import main as iris


def train(dataset_dir, model_output_dir):
    print("TF_CONFIG " + os.environ["TF_CONFIG"], flush=True)
    for name in ("DDL_ENTRY_POINT", "ELASTICDL_NUM_EPOCHS", "ELASTICDL_JOB_TYPE", "GREETING"):
        print(f"{name}={os.environ.get(name, '')}", flush=True)
    if json.loads(os.environ["TF_CONFIG"])["task"]["type"] == "worker":
        iris.main(dataset_dir, model_output_dir)
)";

void TestE2eSeedJobs::elasticDlAllreduceJob()
{
    const QString zoo = copyExample(u"iris-numpy"_s, u"elastic/model_zoo"_s);
    QVERIFY(!zoo.isEmpty());
    QVERIFY(QDir().mkpath(zoo + u"/elastic"_s));
    QFile init(zoo + u"/elastic/__init__.py"_s);
    QVERIFY(init.open(QIODevice::WriteOnly));
    init.close();
    QFile entry(zoo + u"/elastic/entry.py"_s);
    QVERIFY(entry.open(QIODevice::WriteOnly));
    entry.write(EntryModule);
    entry.close();

    const CliRun submit = seed(u"elasticdl"_s,
                               {u"train"_s,
                                u"--image_name=python3"_s,
                                u"--model_zoo=model_zoo"_s,
                                u"--model_def=elastic.entry.train"_s,
                                u"--training_data=model_zoo/data"_s,
                                u"--num_epochs=3"_s,
                                u"--minibatch_size=16"_s,
                                u"--num_workers=2"_s,
                                u"--distribution_strategy=AllreduceStrategy"_s,
                                u"--worker_resource_request=cpu=1,memory=512Mi"_s,
                                u"--job_name=iris-allreduce"_s,
                                u"--envs=GREETING=hello"_s,
                                u"--output=model_output"_s},
                               m_cluster.path(u"elastic"_s));
    QVERIFY2(submit.exitCode == 0, qPrintable(submit.out + submit.err));
    QVERIFY2(submit.out.contains(u"job_type: ddl\njob_name: iris-allreduce\n"_s),
             qPrintable(submit.out));

    const QString state = m_cluster.waitForJobEnd(User, u"iris-allreduce"_s, 150000);
    QVERIFY2(state == u"SUCCEEDED"_s, qPrintable(state + u'\n' + diagnostics(u"iris-allreduce"_s)));

    const CliRun logs = m_cluster.cli(User, {u"logs"_s, u"--job_uuid=iris-allreduce"_s});
    QCOMPARE(logs.exitCode, 0);
    // Both workers were called through --model_def and told of each other.
    static const QRegularExpression tfConfig(u"^(?:\\S+\\| )?TF_CONFIG (.*)$"_s,
                                             QRegularExpression::MultilineOption);
    QSet<int> indices;
    for (auto it = tfConfig.globalMatch(logs.out); it.hasNext();) {
        const QJsonObject config = QJsonDocument::fromJson(it.next().captured(1).toUtf8()).object();
        QCOMPARE(config.value(u"cluster"_s).toObject().keys(), QStringList{u"worker"_s});
        QCOMPARE(config.value(u"cluster"_s).toObject().value(u"worker"_s).toArray().size(), 2);
        QCOMPARE(config.value(u"task"_s).toObject().value(u"type"_s).toString(), u"worker"_s);
        indices.insert(config.value(u"task"_s).toObject().value(u"index"_s).toInt(-1));
    }
    QVERIFY2(indices == (QSet<int>{0, 1}), qPrintable(logs.out.right(4000)));
    for (const QString &line : {u"DDL_ENTRY_POINT=elastic.entry.train"_s,
                                u"ELASTICDL_NUM_EPOCHS=3"_s,
                                u"ELASTICDL_JOB_TYPE=training_only"_s,
                                u"GREETING=hello"_s}) {
        QCOMPARE(logs.out.count(line), 2);
    }

    // Each worker's model, in a folder of its own.
    const QString dest = m_cluster.path(u"elastic-model"_s);
    const CliRun download =
        m_cluster.cli(User, {u"download"_s, u"--job_uuid=iris-allreduce"_s, u"--dest="_s + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    QVERIFY(QFileInfo(dest + u"/worker-0/model.npz"_s).size() > 0);
    QVERIFY(QFileInfo(dest + u"/worker-1/model.npz"_s).size() > 0);
}

void TestE2eSeedJobs::elasticDlParameterServerTfConfig()
{
    // The same model zoo (uploaded once: the same files give the same package).
    const CliRun submit = seed(u"elasticdl"_s,
                               {u"evaluate"_s,
                                u"--model_zoo=model_zoo"_s,
                                u"--model_def=elastic.entry.train"_s,
                                u"--validation_data=model_zoo/data"_s,
                                u"--num_workers=1"_s,
                                u"--num_ps_pods=1"_s,
                                u"--ps_resource_request=cpu=1,memory=256Mi"_s,
                                u"--worker_resource_request=cpu=1,memory=512Mi"_s,
                                u"--job_name=iris-ps"_s,
                                u"--format=json"_s},
                               m_cluster.path(u"elastic"_s));
    QVERIFY2(submit.exitCode == 0, qPrintable(submit.out + submit.err));
    const QJsonObject answer = QJsonDocument::fromJson(submit.out.toUtf8()).object();
    QCOMPARE(answer.value(u"job_name"_s).toString(), u"iris-ps"_s);
    QCOMPARE(answer.value(u"job_type"_s).toString(), u"ddl"_s);

    const QString state = m_cluster.waitForJobEnd(User, u"iris-ps"_s, 150000);
    QVERIFY2(state == u"SUCCEEDED"_s, qPrintable(state + u'\n' + diagnostics(u"iris-ps"_s)));
    const CliRun logs = m_cluster.cli(User, {u"logs"_s, u"--job_uuid=iris-ps"_s});
    static const QRegularExpression tfConfig(u"^(?:\\S+\\| )?TF_CONFIG (.*)$"_s,
                                             QRegularExpression::MultilineOption);
    QStringList types;
    for (auto it = tfConfig.globalMatch(logs.out); it.hasNext();) {
        const QJsonObject config = QJsonDocument::fromJson(it.next().captured(1).toUtf8()).object();
        const QJsonObject cluster = config.value(u"cluster"_s).toObject();
        QCOMPARE(cluster.value(u"ps"_s).toArray().size(), 1);
        QCOMPARE(cluster.value(u"worker"_s).toArray().size(), 1);
        QCOMPARE(config.value(u"task"_s).toObject().value(u"index"_s).toInt(-1), 0);
        types << config.value(u"task"_s).toObject().value(u"type"_s).toString();
    }
    types.sort();
    QVERIFY2(types == (QStringList{u"ps"_s, u"worker"_s}), qPrintable(logs.out.right(4000)));
    QCOMPARE(logs.out.count(u"ELASTICDL_JOB_TYPE=evaluation_only"_s), 2);
}

void TestE2eSeedJobs::seedErrorsBeforeAnythingIsSent()
{
    const CliRun badResource = seed(u"elasticdl"_s,
                                    {u"train"_s,
                                     u"--model_zoo=model_zoo"_s,
                                     u"--model_def=elastic.entry.train"_s,
                                     u"--training_data=model_zoo/data"_s,
                                     u"--worker_resource_request=cpu=1,memory=4096"_s},
                                    m_cluster.path(u"elastic"_s));
    QCOMPARE(badResource.exitCode, 2);
    QCOMPARE(badResource.err,
             u"elasticdl: error: --worker_resource_request memory: '4096' is not valid: a number "
             "without a unit would be bytes; write 4096Mi for MiB\n"_s);
    const CliRun unknown =
        seed(u"paddle"_s,
             {u"job"_s, u"submit"_s, u"--package-path=ps_worker"_s, u"--trainer-memory=1Gi"_s},
             m_cluster.path(u"paddle"_s));
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.startsWith(u"paddle: error: unknown option --trainer-memory (did you "
                                    "mean --trainer-mem=SIZE?)"_s),
             qPrintable(unknown.err));
}

// python/paddle: paddle.dist.train(...) as the seed's Python client writes it, against the real
// server, over its REST API with the standard library only.
static const QByteArray DistScript = R"(import sys
sys.path.insert(0, sys.argv[1])
import paddle

server, ca_cert, email, password, package = sys.argv[2:7]
try:
    paddle.dist.train(job_name="py-paddle", package_path=package, entry_point="python3 worker.py",
                      base_image="python3", server=server, ca_cert=ca_cert, k8s_user=email,
                      k8s_pssword="wrong-password")
except paddle.dist.DdlError as error:
    print("refused:", error.code, error.message, flush=True)
job = paddle.dist.train(
    job_name="py-paddle", package_path=package, entry_point="python3 worker.py",
    pserver_entry_point="python3 ps.py", trainers=2, pservers=1, trainer_cpu=1,
    trainer_mem="512Mi", pserver_cpu="500m", pserver_mem="512Mi", base_image="python3",
    env={"DDL_PS_ROLE": "pserver", "DDL_WORKER_ROLE": "trainer"},
    input=package + "/data", output="./model", server=server, ca_cert=ca_cert, k8s_user=email,
    k8s_pssword=password)
print("submitted", job.name, job.uuid, flush=True)
print("state", job.wait(timeout=150, poll=0.5), flush=True)
roles = sorted(task["role"] for task in job.info()["tasks"])
print("roles", ",".join(roles), flush=True)
)";

void TestE2eSeedJobs::pythonDistTrain()
{
    const QString package = copyExample(u"ps-worker"_s, u"python/ps_worker"_s);
    QVERIFY(!package.isEmpty());
    const QString script = m_cluster.path(u"python/submit.py"_s);
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(DistScript);
    file.close();

    QProcess python;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"PYTHONDONTWRITEBYTECODE"_s, u"1"_s);
    environment.insert(u"HOME"_s, m_cluster.path(u"users/"_s + User));
    python.setProcessEnvironment(environment);
    python.start(u"python3"_s,
                 {script,
                  qEnvironmentVariable("DDL_SOURCE_DIR") + u"/python"_s,
                  m_cluster.serverUrl(),
                  m_cluster.caCert(),
                  Email,
                  u"dana-password"_s,
                  package});
    QVERIFY(python.waitForFinished(200000));
    const QString out = QString::fromUtf8(python.readAllStandardOutput());
    const QString err = QString::fromUtf8(python.readAllStandardError());
    QVERIFY2(python.exitCode() == 0, qPrintable(out + err));
    // A wrong password is DDL's error, with its code.
    QVERIFY2(out.contains(u"refused: unauthorized"_s), qPrintable(out + err));
    QVERIFY2(out.contains(u"state SUCCEEDED\n"_s),
             qPrintable(out + err + diagnostics(u"py-paddle"_s)));
    QVERIFY2(out.contains(u"roles pserver,trainer,trainer\n"_s), qPrintable(out));

    // The same job as ddlcli sees it: the pserver found by the trainers, its model kept.
    const CliRun logs = m_cluster.cli(User, {u"logs"_s, u"--job_uuid=py-paddle"_s});
    QVERIFY2(logs.out.contains(u"connected to 1 parameter servers"_s),
             qPrintable(logs.out.right(3000)));
    const QString dest = m_cluster.path(u"python-model"_s);
    const CliRun download =
        m_cluster.cli(User, {u"download"_s, u"--job_uuid=py-paddle"_s, u"--dest="_s + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    QVERIFY(QFileInfo(dest + u"/pserver-0/model.npz"_s).size() > 0);
}

QTEST_GUILESS_MAIN(TestE2eSeedJobs)
#include "tst_e2e_seedjobs.moc"
