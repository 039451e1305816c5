// A distributed OpenPAI job with real processes: ddl-server and two ddl-workers (2 slots each) on
// loopback, examples/ps-worker submitted from a real git repository with ddlcli. Its workers find
// the parameter server by PAI_TASK_ROLE_<i>_HOST_LIST and connect to the port the server gave it,
// so the job only succeeds when the gang was placed whole and the host lists are right.
#include "clusterharness.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QThread>

static const QString User = QStringLiteral("carol");

class TestE2ePsWorker : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void parameterServerJobTrainsAcrossTwoWorkers();

private:
    QJsonObject job(const QString &uuid) { return m_cluster.job(User, uuid); }
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
};

void TestE2ePsWorker::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    // The job's commands are "python3 ...": the system's Python, which has numpy, comes first.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PATH"),
                       QStringLiteral("/usr/local/bin:/usr/bin:/bin:")
                           + environment.value(QStringLiteral("PATH")));
    for (const QString &name : {QStringLiteral("w1"), QStringLiteral("w2")}) {
        QVERIFY(m_cluster.startNamedWorker(name,
                                           {QStringLiteral("--slots"), QStringLiteral("2"),
                                            QStringLiteral("--advertise-address"),
                                            QStringLiteral("127.0.0.1")},
                                           environment));
    }
    QVERIFY(m_cluster.registerAndLogin(User, QStringLiteral("carol-password")));
}

QString TestE2ePsWorker::diagnostics(const QString &uuid)
{
    const CliRun progress = m_cluster.cli(User, {QStringLiteral("progress"),
                                                 QStringLiteral("--job_uuid=") + uuid});
    const CliRun logs = m_cluster.cli(User, {QStringLiteral("logs"),
                                             QStringLiteral("--job_uuid=") + uuid});
    return progress.out + progress.err + QStringLiteral("\n--- logs ---\n") + logs.out.right(6000)
           + QStringLiteral("\n--- w1 ---\n") + m_cluster.workerLog(QStringLiteral("w1")).right(2000)
           + QStringLiteral("\n--- w2 ---\n") + m_cluster.workerLog(QStringLiteral("w2")).right(2000)
           + QStringLiteral("\n--- server ---\n") + m_cluster.serverLog().right(2000);
}

void TestE2ePsWorker::parameterServerJobTrainsAcrossTwoWorkers()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("carol-psworker"),
                                                   QStringLiteral("ps-worker"));
    QVERIFY(!repo.isEmpty());
    const CliRun submit = m_cluster.cli(User, {QStringLiteral("submit"),
                                               QStringLiteral("--job_config=job.json")},
                                        repo);
    const QString uuid = jobUuidOf(submit.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submit.out + submit.err));

    const QString state = m_cluster.waitForJobEnd(User, uuid, 150000);
    QVERIFY2(state == QLatin1String("SUCCEEDED"), qPrintable(state + u'\n' + diagnostics(uuid)));

    // One ps and two workers, all exited 0; three tasks on two 2-slot workers use both.
    const QJsonArray tasks = job(uuid).value(QStringLiteral("tasks")).toArray();
    QCOMPARE(tasks.size(), 3);
    QSet<QString> workers;
    for (const QJsonValue &value : tasks) {
        const QJsonObject task = value.toObject();
        QCOMPARE(task.value(QStringLiteral("state")).toString(), QStringLiteral("SUCCEEDED"));
        QCOMPARE(task.value(QStringLiteral("exit_code")).toInt(-1), 0);
        workers.insert(task.value(QStringLiteral("worker")).toString());
    }
    QCOMPARE(workers, (QSet<QString>{QStringLiteral("w1"), QStringLiteral("w2")}));

    const CliRun logs = m_cluster.cli(User, {QStringLiteral("logs"),
                                             QStringLiteral("--job_uuid=") + uuid});
    QCOMPARE(logs.exitCode, 0);
    QVERIFY2(logs.out.contains(QLatin1String("DDL_METRIC {\"step\": 0, \"loss\": 1.098612}")),
             qPrintable(logs.out.right(3000)));
    QVERIFY2(logs.out.contains(QLatin1String("connected to 1 parameter servers")),
             qPrintable(logs.out.right(3000)));

    const QString dest = m_cluster.path(QStringLiteral("carol-model"));
    const CliRun download = m_cluster.cli(User, {QStringLiteral("download"),
                                                 QStringLiteral("--job_uuid=") + uuid,
                                                 QStringLiteral("--dest=") + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    // A job of several tasks keeps each one's output in a folder of its own: ps 0 wrote these.
    QVERIFY(QFileInfo(QDir(dest).filePath(QStringLiteral("ps-0/model.npz"))).size() > 0);
    QFile metricsFile(QDir(dest).filePath(QStringLiteral("ps-0/metrics.json")));
    QVERIFY(metricsFile.open(QIODevice::ReadOnly));
    const QJsonObject metrics = QJsonDocument::fromJson(metricsFile.readAll()).object();
    const QByteArray shown = QJsonDocument(metrics).toJson();
    QCOMPARE(metrics.value(QStringLiteral("workers")).toInt(), 2);
    QCOMPARE(metrics.value(QStringLiteral("parameter_servers")).toInt(), 1);
    QCOMPARE(metrics.value(QStringLiteral("version")).toInt(),
             metrics.value(QStringLiteral("steps")).toInt());
    // Softmax regression on Iris starts at ln 3 and really learns.
    const double initial = metrics.value(QStringLiteral("initial_loss")).toDouble();
    const double final = metrics.value(QStringLiteral("final_loss")).toDouble();
    QVERIFY2(initial > 1.09 && final < 0.5 * initial, shown.constData());
    QVERIFY2(metrics.value(QStringLiteral("test_accuracy")).toDouble() > 0.8, shown.constData());
}

QTEST_GUILESS_MAIN(TestE2ePsWorker)
#include "tst_e2e_psworker.moc"
