// GET /v1/workers, the users' view of the pool, against the real ddl-server and ddl-worker
// processes: a logged-in user sees each worker with its capacity, state and running tasks, and
// nothing secret (no address, no token); without a login it is 401.
#include "clusterharness.h"

#include "api/apiclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <memory>

using namespace ddl;

class tst_WorkersApi : public QObject
{
    Q_OBJECT

private slots:
    void listsWorkersForUsers();
    void enrollRefusesABadAddress_data();
    void enrollRefusesABadAddress();
    void cleanupTestCase() { m_cluster.reset(); }

private:
    std::unique_ptr<ClusterHarness> m_cluster; // one server for all rows of a table
};

void tst_WorkersApi::listsWorkersForUsers()
{
    ClusterHarness cluster;
    QVERIFY(cluster.startServer());
    QVERIFY(cluster.startNamedWorker(QStringLiteral("gpu-box"),
                                     {QStringLiteral("--gpus"), QStringLiteral("0"),
                                      QStringLiteral("--slots"), QStringLiteral("3"),
                                      QStringLiteral("--gpu-type"), QStringLiteral("Tesla V100")}));
    // Without --gpu-type and without GPUs: no label.
    QVERIFY(cluster.startNamedWorker(QStringLiteral("cpu-box"),
                                     {QStringLiteral("--gpus"), QStringLiteral("0")}));
    Result<ServerTrust> trust = ServerTrust::fromCaFile(cluster.caCert());
    QVERIFY(trust.ok());
    ApiClient client(QUrl(cluster.serverUrl()), *trust);

    Result<ApiResponse> anonymous = client.getSync(QStringLiteral("/v1/workers"));
    QVERIFY(!anonymous.ok());
    QCOMPARE(anonymous.error().code, QStringLiteral("unauthorized"));

    const QJsonObject account{{QStringLiteral("email"), QStringLiteral("w@example.com")},
                              {QStringLiteral("password"), QStringLiteral("long enough")}};
    QVERIFY(client.postJsonSync(QStringLiteral("/v1/auth/register"), account).ok());
    Result<ApiResponse> login = client.postJsonSync(QStringLiteral("/v1/auth/login"), account);
    QVERIFY(login.ok());
    client.setBearerToken(login->json().value(QStringLiteral("access_token")).toString());

    QJsonArray workers;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            Result<ApiResponse> answer = client.getSync(QStringLiteral("/v1/workers"));
            workers = answer ? answer->json().value(QStringLiteral("workers")).toArray()
                             : QJsonArray();
            return workers.size() == 2;
        }(),
        15000);
    // Ordered by name.
    const QJsonObject unlabelled = workers.first().toObject();
    QCOMPARE(unlabelled.value(QStringLiteral("name")).toString(), QStringLiteral("cpu-box"));
    QCOMPARE(unlabelled.value(QStringLiteral("gpu_type")), QJsonValue(QStringLiteral("")));
    const QJsonObject worker = workers.last().toObject();
    QCOMPARE(worker.value(QStringLiteral("name")).toString(), QStringLiteral("gpu-box"));
    QCOMPARE(worker.value(QStringLiteral("state")).toString(), QStringLiteral("ONLINE"));
    QCOMPARE(worker.value(QStringLiteral("slots")).toInt(), 3);
    QCOMPARE(worker.value(QStringLiteral("gpus")).toInt(), 0);
    // The label jobs name in OpenPAI's gpuType (a GPU-less worker may carry one too).
    QCOMPARE(worker.value(QStringLiteral("gpu_type")).toString(), QStringLiteral("Tesla V100"));
    QVERIFY(worker.value(QStringLiteral("cpus")).toInt() >= 1);
    QCOMPARE(worker.value(QStringLiteral("running_tasks")).toInt(), 0);
    QVERIFY(worker.value(QStringLiteral("last_seen")).isString());
    QVERIFY(!worker.contains(QStringLiteral("address")));
    // Its trust (docs/trust.md): a new worker on a server without canaries has only its tasks
    // part, 30, and is unverified; quarantine_reason appears only for a quarantined worker.
    QCOMPARE(worker.value(QStringLiteral("trust")).toInt(-1), 30);
    QCOMPARE(worker.value(QStringLiteral("trust_state")).toString(), QStringLiteral("unverified"));
    QVERIFY(!worker.contains(QStringLiteral("quarantine_reason")));
    const QString id = worker.value(QStringLiteral("id")).toString();
    QVERIFY(!ServerProcess::runCommand({QStringLiteral("workers"), QStringLiteral("quarantine"), id,
                                        QStringLiteral("--reason"), QStringLiteral("checking it"),
                                        QStringLiteral("--data-dir"),
                                        cluster.path(QStringLiteral("server"))})
                 .isEmpty());
    Result<ApiResponse> after = client.getSync(QStringLiteral("/v1/workers"));
    QVERIFY(after.ok());
    const QJsonObject held =
        after->json().value(QStringLiteral("workers")).toArray().last().toObject();
    QCOMPARE(held.value(QStringLiteral("trust")).toInt(-1), 0);
    QCOMPARE(held.value(QStringLiteral("trust_state")).toString(), QStringLiteral("quarantined"));
    QCOMPARE(held.value(QStringLiteral("quarantine_reason")).toString(),
             QStringLiteral("checking it"));
    const QByteArray text = QJsonDocument(worker).toJson();
    QVERIFY(!text.contains("token"));
}

// The address a worker advertises goes into every task's host lists: one line, a host name or an
// IP address, nothing after it (not even a newline).
void tst_WorkersApi::enrollRefusesABadAddress_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("ipv4") << QStringLiteral("10.9.9.9") << true;
    QTest::newRow("host name") << QStringLiteral("gpu-box.lab") << true;
    QTest::newRow("trailing newline") << QStringLiteral("10.9.9.9\n") << false;
    QTest::newRow("second line") << QStringLiteral("10.9.9.9\nPAI=1") << false;
    QTest::newRow("space") << QStringLiteral("10.9.9.9 x") << false;
}

void tst_WorkersApi::enrollRefusesABadAddress()
{
    QFETCH(QString, address);
    QFETCH(bool, accepted);
    if (!m_cluster) {
        m_cluster = std::make_unique<ClusterHarness>();
        QVERIFY(m_cluster->startServer());
    }
    ClusterHarness *cluster = m_cluster.get();
    Result<ServerTrust> trust = ServerTrust::fromCaFile(cluster->caCert());
    QVERIFY(trust.ok());
    ApiClient client(QUrl(cluster->serverUrl()), *trust);
    const QJsonObject enroll{{QStringLiteral("enroll_token"), cluster->enrollToken()},
                             {QStringLiteral("name"), QString::fromLatin1(QTest::currentDataTag())},
                             {QStringLiteral("hostname"), QStringLiteral("box")},
                             {QStringLiteral("cpus"), 1},
                             {QStringLiteral("memory_mb"), 1024},
                             {QStringLiteral("gpus"), 0},
                             {QStringLiteral("slots"), 1},
                             {QStringLiteral("address"), address}};
    Result<ApiResponse> answer = client.postJsonSync(QStringLiteral("/v1/workers/enroll"), enroll);
    QVERIFY2(answer.ok() == accepted,
             qPrintable(answer ? QStringLiteral("accepted") : answer.error().message));
    if (!accepted)
        QCOMPARE(answer.error().field, QStringLiteral("address"));
}

QTEST_MAIN(tst_WorkersApi)
#include "tst_workers_api.moc"
