// OpenPAI job configs as people write them, submitted with ddlcli to a real ddl-server and
// ddl-worker: a v1 JSON with comments, portList, jobEnvs, shmMB and fields that have no effect
// here; a protocol v2 YAML with parameters, ports and a completion policy; a v1 job whose
// failures are tolerated (minFailedTaskCount null); gpuType placing jobs by workers' labels.
#include "clusterharness.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <algorithm>

using namespace Qt::StringLiterals;

static const QString User = QStringLiteral("pat");

class TestE2eOpenPai : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void v1JobGetsPortsEnvsAndNotes();
    void v2YamlWithParametersAndCompletion();
    void toleratedFailures();
    void gpuTypeChoosesTheWorker();

private:
    // Submits the config (written to a file of this name in a folder that is no git repository)
    // and returns the job's uuid, or an empty string.
    QString submit(const QString &fileName, const QByteArray &config, QString *output = nullptr);
    QJsonObject job(const QString &uuid) { return m_cluster.job(User, uuid); }
    // The last log lines of the task of this role and index.
    QString logOf(const QJsonObject &job, const QString &role, int index);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
};

void TestE2eOpenPai::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    // A GPU type label on a worker without GPUs (this machine has none): the v1 job's gpuType
    // K80 matches it in another case.
    QVERIFY(m_cluster.startWorker({QStringLiteral("--slots"), QStringLiteral("4"),
                                   QStringLiteral("--gpu-type"), QStringLiteral("k80")}));
    QVERIFY(m_cluster.registerAndLogin(User, QStringLiteral("pat-password")));
}

QString TestE2eOpenPai::submit(const QString &fileName, const QByteArray &config, QString *output)
{
    const QString folder = m_cluster.path(QStringLiteral("configs/") + fileName + u'd');
    QDir().mkpath(folder);
    QFile file(QDir(folder).filePath(fileName));
    if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size())
        return {};
    file.close();
    const CliRun run = m_cluster.cli(User, {QStringLiteral("submit"),
                                            QStringLiteral("--job_config=") + fileName},
                                     folder);
    if (output)
        *output = run.out + run.err;
    const QString uuid = jobUuidOf(run.out);
    if (uuid.isEmpty())
        qWarning().noquote() << run.out << run.err;
    return uuid;
}

QString TestE2eOpenPai::logOf(const QJsonObject &job, const QString &role, int index)
{
    for (const QJsonValue &value : job.value(QStringLiteral("tasks")).toArray()) {
        const QJsonObject task = value.toObject();
        if (task.value(QStringLiteral("role")).toString() == role
            && task.value(QStringLiteral("role_index")).toInt() == index) {
            QStringList lines;
            for (const QJsonValue &line : task.value(QStringLiteral("log_tail")).toArray())
                lines << line.toString();
            return lines.join(u'\n');
        }
    }
    return {};
}

QString TestE2eOpenPai::diagnostics(const QString &uuid)
{
    const CliRun progress = m_cluster.cli(User, {QStringLiteral("progress"),
                                                 QStringLiteral("--job_uuid=") + uuid});
    return progress.out + progress.err + QStringLiteral("\n--- worker ---\n")
           + m_cluster.workerLog().right(3000) + QStringLiteral("\n--- server ---\n")
           + m_cluster.serverLog().right(2000);
}

void TestE2eOpenPai::v1JobGetsPortsEnvsAndNotes()
{
    // As people write them: comments (also "//" inside strings), the portal's no-effect fields.
    const QByteArray config = R"json({
  // an OpenPAI v1 job, with every kind of field its schema allows
  "jobName": "pai-v1-e2e",
  "image": "ubuntu:22.04", /* not run here */
  "authFile": "hdfs://10.0.0.1:9000/auth.txt",
  "virtualCluster": "default",
  "gpuType": "K80",
  "retryCount": 0,
  "jobEnvs": {"batch_size": 32, "MODEL_URL": "http://models.example/resnet // v2"},
  "taskRoles": [
    {
      "name": "server", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
      "shmMB": 64,
      // two port types, three ports
      "portList": [{"label": "http", "beginAt": 0, "portNumber": 2},
                   {"label": "ssh", "beginAt": 0, "portNumber": 1}],
      "command": "echo own=$PAI_CURRENT_CONTAINER_PORT http=$PAI_CONTAINER_HOST_http_PORT_LIST ssh=$PAI_CONTAINER_HOST_ssh_PORT_LIST all=$PAI_CONTAINER_HOST_PORT_LIST; echo batch=$batch_size url=$MODEL_URL; echo peer=$PAI_PORT_LIST_client_0_http; df -m /dev/shm | tail -n 1"
    },
    {
      "name": "client", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
      "portList": [{"label": "http", "portNumber": 1}],
      "command": "echo client=$PAI_CONTAINER_HOST_http_PORT_LIST server=$PAI_PORT_LIST_server_0_http batch=$batch_size"
    }
  ]
})json";
    QString output;
    const QString uuid = submit(QStringLiteral("job.json"), config, &output);
    QVERIFY2(!uuid.isEmpty(), qPrintable(output));
    // ddlcli says at once what has no effect.
    QVERIFY2(output.contains(QLatin1String("note: authFile: accepted, but has no effect here")),
             qPrintable(output));

    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == QLatin1String("SUCCEEDED"), qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonObject done = job(uuid);

    // The server's log lines: own=P http=P+1,P+2 ssh=P+3, as one run booked on the worker.
    const QString server = logOf(done, QStringLiteral("server"), 0);
    static const QRegularExpression portsLine(
        QStringLiteral(R"(own=(\d+) http=(\d+),(\d+) ssh=(\d+) all=http:(\d+),(\d+);ssh:(\d+))"));
    const QRegularExpressionMatch ports = portsLine.match(server);
    QVERIFY2(ports.hasMatch(), qPrintable(server));
    const int own = ports.captured(1).toInt();
    QVERIFY(own > 0);
    for (int i = 2; i <= 4; ++i)
        QCOMPARE(ports.captured(i).toInt(), own + i - 1);
    QCOMPARE(ports.captured(5) + ports.captured(6) + ports.captured(7),
             ports.captured(2) + ports.captured(3) + ports.captured(4));
    // The job tells the same of its task (what the desktop shows per task): the worker's
    // address, the task's own port and its labelled ports.
    const auto tasks = done.value(QStringLiteral("tasks")).toArray();
    const auto serverTask = std::find_if(tasks.begin(), tasks.end(), [](const QJsonValue &task) {
        return task.toObject().value(QStringLiteral("role")).toString() == QLatin1String("server");
    });
    QVERIFY(serverTask != tasks.end());
    const QJsonObject told = serverTask->toObject();
    QVERIFY2(!told.value(QStringLiteral("address")).toString().isEmpty(),
             QJsonDocument(told).toJson().constData());
    QCOMPARE(told.value(QStringLiteral("port")).toInt(), own);
    QCOMPARE(told.value(QStringLiteral("ports")).toObject(),
             (QJsonObject{{QStringLiteral("http"), QJsonArray{own + 1, own + 2}},
                          {QStringLiteral("ssh"), QJsonArray{own + 3}}}));
    QCOMPARE(told.value(QStringLiteral("gpus")).toArray(), QJsonArray());

    // jobEnvs reach every task, "//" in a value included.
    QVERIFY2(server.contains(QLatin1String("batch=32 url=http://models.example/resnet // v2")),
             qPrintable(server));
    // shmMB: the task's /dev/shm is a 64 MB tmpfs.
    static const QRegularExpression shmLine(QStringLiteral(R"(\s64\s+\d+\s+\d+\s+\d+%\s+/dev/shm)"));
    QVERIFY2(shmLine.match(server).hasMatch(), qPrintable(server));

    // Each side sees the other's labelled ports.
    const QString client = logOf(done, QStringLiteral("client"), 0);
    static const QRegularExpression clientLine(QStringLiteral(R"(client=(\d+) server=(\d+),(\d+) batch=32)"));
    const QRegularExpressionMatch seen = clientLine.match(client);
    QVERIFY2(seen.hasMatch(), qPrintable(client));
    QCOMPARE(seen.captured(2) + u',' + seen.captured(3), ports.captured(2) + u',' + ports.captured(3));
    QVERIFY2(server.contains(QLatin1String("peer=") + seen.captured(1)), qPrintable(server));

    // The job's events name every field kept without effect.
    QStringList events;
    for (const QJsonValue &event : done.value(QStringLiteral("events")).toArray())
        events << event.toObject().value(QStringLiteral("message")).toString();
    for (const char *field : {"image", "authFile", "virtualCluster"}) {
        const QString prefix = QLatin1String(field)
                               + QLatin1String(": accepted, but has no effect here: ");
        QVERIFY2(std::any_of(events.cbegin(), events.cend(),
                             [&](const QString &event) { return event.startsWith(prefix); }),
                 qPrintable(QLatin1String(field) + u'\n' + events.join(u'\n')));
    }
    QCOMPARE(events.size(), 3);
}

void TestE2eOpenPai::v2YamlWithParametersAndCompletion()
{
    // Two instances; the job succeeds as soon as one did (minSucceededInstances: 1), and the
    // other, still sleeping, is stopped.
    const QByteArray config = R"yaml(protocolVersion: 2
name: pai-v2-e2e
type: job
prerequisites:
  - name: image
    type: dockerimage
    uri: ubuntu:22.04
parameters:
  greeting: hello-from-v2
taskRoles:
  main:
    instances: 2
    completion:
      minSucceededInstances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0, ports: {api: 1}}
    commands:
      - echo <% $parameters.greeting %> api=$PAI_CONTAINER_HOST_api_PORT_LIST
      - if [ "$PAI_TASK_ROLE_INDEX" = 1 ]; then sleep 100; fi
defaults:
  virtualCluster: default
)yaml";
    QString output;
    const QString uuid = submit(QStringLiteral("job.yaml"), config, &output);
    QVERIFY2(!uuid.isEmpty(), qPrintable(output));

    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == QLatin1String("SUCCEEDED"), qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonObject done = job(uuid);
    QCOMPARE(done.value(QStringLiteral("name")).toString(), QStringLiteral("pai-v2-e2e"));
    const QString first = logOf(done, QStringLiteral("main"), 0);
    static const QRegularExpression greeting(QStringLiteral(R"(hello-from-v2 api=(\d+))"));
    QVERIFY2(greeting.match(first).hasMatch(), qPrintable(first));

    QStringList states;
    for (const QJsonValue &value : done.value(QStringLiteral("tasks")).toArray())
        states << value.toObject().value(QStringLiteral("state")).toString();
    QVERIFY2(states.contains(QLatin1String("SUCCEEDED")), qPrintable(states.join(u',')));

    QStringList events;
    for (const QJsonValue &event : done.value(QStringLiteral("events")).toArray())
        events << event.toObject().value(QStringLiteral("message")).toString();
    QVERIFY2(events.join(u'\n').contains(QLatin1String("virtualCluster: accepted, but has no "
                                                       "effect here")),
             qPrintable(events.join(u'\n')));
}

void TestE2eOpenPai::toleratedFailures()
{
    // minFailedTaskCount null: a failed task does not fail the job.
    const QByteArray config = R"json({"jobName": "pai-tolerant", "image": "ubuntu",
  "taskRoles": [{"name": "w", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
    "minFailedTaskCount": null,
    "command": "test \"$PAI_TASK_ROLE_INDEX\" = 0"}]})json";
    const QString uuid = submit(QStringLiteral("tolerant.json"), config);
    QVERIFY(!uuid.isEmpty());
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == QLatin1String("SUCCEEDED"), qPrintable(state + u'\n' + diagnostics(uuid)));
    QStringList states;
    for (const QJsonValue &value : job(uuid).value(QStringLiteral("tasks")).toArray())
        states << value.toObject().value(QStringLiteral("state")).toString();
    states.sort();
    QCOMPARE(states, (QStringList{QStringLiteral("FAILED"), QStringLiteral("SUCCEEDED")}));
}

void TestE2eOpenPai::gpuTypeChoosesTheWorker()
{
    // Two more GPU-less workers labelled A and B (--gpu-type is a label; this machine has no
    // GPU), beside the k80 one of initTestCase.
    for (const QString &type : {QStringLiteral("A"), QStringLiteral("B")}) {
        const QString name = QStringLiteral("label-") + type.toLower();
        QVERIFY(m_cluster.startNamedWorker(name, {QStringLiteral("--gpu-type"), type}));
        QTRY_VERIFY2_WITH_TIMEOUT(m_cluster.workerLog(name).contains(u"enrolled as worker"),
                                  qPrintable(m_cluster.workerLog(name)), 15000);
        QVERIFY2(m_cluster.workerLog(name).contains(u", GPU type " + type),
                 qPrintable(m_cluster.workerLog(name)));
    }

    // gpuType "b" (OpenPAI matches in any case) runs on the B worker only, though the others
    // are idle.
    const QByteArray onB = R"json({"jobName": "pai-gpu-type-b", "image": "ubuntu", "gpuType": "b",
  "taskRoles": [{"name": "w", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
    "command": "echo on-b"}]})json";
    QString output;
    const QString uuid = submit(QStringLiteral("gpu-type-b.json"), onB, &output);
    QVERIFY2(!uuid.isEmpty(), qPrintable(output));
    QVERIFY2(!output.contains(u"gpuType: accepted, but has no effect"), qPrintable(output));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == QLatin1String("SUCCEEDED"), qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonArray tasks = job(uuid).value(QStringLiteral("tasks")).toArray();
    QCOMPARE(tasks.size(), 2);
    for (const QJsonValue &task : tasks)
        QCOMPARE(task.toObject().value(QStringLiteral("worker")).toString(), u"label-b"_s);

    // gpuType C: no registered worker has it, so it is refused at submit, with the way out.
    const QByteArray onC = R"json({"jobName": "pai-gpu-type-c", "image": "ubuntu", "gpuType": "C",
  "taskRoles": [{"name": "w", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
    "command": "echo on-c"}]})json";
    QVERIFY(submit(QStringLiteral("gpu-type-c.json"), onC, &output).isEmpty());
    QVERIFY2(output.contains(u"needs GPU type C; no registered worker has it (they have A, B and "
                             "k80)"),
             qPrintable(output));
    QVERIFY2(output.contains(u"--allow-unschedulable"), qPrintable(output));
}

QTEST_GUILESS_MAIN(TestE2eOpenPai)
#include "tst_e2e_openpai.moc"
