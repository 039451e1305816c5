// Load on the real ddl-server process over TLS on loopback: 200 clients, each on its own
// keep-alive connection, poll the status of a job (GET /v1/jobs/<uuid>) and 100 workers
// heartbeat (POST /v1/workers/heartbeat), for DDL_LOAD_SECONDS (default 60). Every request must
// succeed; the test prints the latency percentiles (p99 included) and the request rate.

#include "httpsclient.h"
#include "serverprocess.h"
#include "serveruser.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

constexpr int UserCount = 10;
constexpr int ClientCount = 200;
constexpr int WorkerCount = 100;
constexpr int PollIntervalMs = 500;      // each client's pause between two status requests
constexpr int HeartbeatIntervalMs = 1000; // twice as often as ddl-worker heartbeats

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

qint64 percentile(std::vector<qint64> sorted, double fraction)
{
    if (sorted.empty())
        return 0;
    std::sort(sorted.begin(), sorted.end());
    const size_t index = std::min(sorted.size() - 1, size_t(fraction * double(sorted.size())));
    return sorted[index];
}

} // namespace

class tst_LoadPolling : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void pollingAndHeartbeats();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ServerProcess> m_server;
    QList<QSslCertificate> m_ca;
    QList<QByteArray> m_userTokens;  // by user
    QList<QByteArray> m_jobUuids;    // one per user
    QList<QByteArray> m_workerTokens;
};

void tst_LoadPolling::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<ServerProcess>(m_dir.filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_ca = QSslCertificate::fromPath(m_server->caFile());
    QVERIFY(!m_ca.isEmpty());

    HttpsClient setup(m_server->port(), m_ca);
    for (int user = 0; user < UserCount; ++user) {
        const QJsonObject credentials{{u"email"_s, u"load%1@example.org"_s.arg(user)},
                                      {u"password"_s, u"load-password-%1"_s.arg(user)}};
        HttpsClient::Answer answer = setup.call("POST", "/v1/auth/register", {}, json(credentials));
        QVERIFY2(answer.status == 201, answer.body.constData());
        answer = setup.call("POST", "/v1/auth/login", {}, json(credentials));
        QVERIFY2(answer.status == 200, answer.body.constData());
        const QByteArray token = parse(answer.body).value(u"access_token"_s).toString().toLatin1();
        QVERIFY(!token.isEmpty());
        m_userTokens << token;
        // A job that asks for more GPUs than any worker has: it waits, and its status (with a
        // reason and its task) is what the clients poll.
        const QJsonObject submission{
            {u"spec"_s, jobSpec(u"openpai"_s, u"load-%1"_s.arg(user), 2, 8, u"true"_s)},
            {u"package"_s, QJsonValue::Null},
            {u"dataset"_s, QJsonValue::Null}};
        answer = setup.call("POST", "/v1/jobs", token, json(submission));
        QVERIFY2(answer.status == 201, answer.body.constData());
        m_jobUuids << parse(answer.body).value(u"uuid"_s).toString().toLatin1();
    }

    const QString enrollToken = ServerProcess::createEnrollToken(m_server->dataDir());
    QVERIFY(!enrollToken.isEmpty());
    for (int worker = 0; worker < WorkerCount; ++worker) {
        const QJsonObject enroll{{u"enroll_token"_s, enrollToken},
                                 {u"name"_s, u"load-worker-%1"_s.arg(worker)},
                                 {u"hostname"_s, u"load-host-%1"_s.arg(worker)},
                                 {u"cpus"_s, 4},
                                 {u"memory_mb"_s, 8192},
                                 {u"gpus"_s, 0},
                                 {u"slots"_s, 1}};
        const HttpsClient::Answer answer =
            setup.call("POST", "/v1/workers/enroll", {}, json(enroll));
        QVERIFY2(answer.status == 201, answer.body.constData());
        m_workerTokens << parse(answer.body).value(u"worker_token"_s).toString().toLatin1();
    }
}

void tst_LoadPolling::cleanupTestCase()
{
    if (m_server)
        m_server->stop();
}

void tst_LoadPolling::pollingAndHeartbeats()
{
    const int seconds = qEnvironmentVariableIntValue("DDL_LOAD_SECONDS") > 0
                            ? qEnvironmentVariableIntValue("DDL_LOAD_SECONDS")
                            : 60;
    struct Driver
    {
        std::unique_ptr<HttpsClient> client;
        QByteArray method;
        QByteArray path;
        QByteArray token;
        QByteArray body;
        bool isWorker = false;
        int intervalMs = 0;
        int answered = 0;
    };
    std::vector<Driver> drivers;
    for (int i = 0; i < ClientCount; ++i) {
        const int user = i % UserCount;
        drivers.push_back({std::make_unique<HttpsClient>(m_server->port(), m_ca), "GET",
                           "/v1/jobs/" + m_jobUuids[user], m_userTokens[user], {}, false,
                           PollIntervalMs});
    }
    const QByteArray heartbeat = json({{u"running"_s, QJsonArray()},
                                       {u"cpus"_s, 4},
                                       {u"memory_mb"_s, 8192},
                                       {u"gpus"_s, 0},
                                       {u"slots"_s, 1}});
    for (int i = 0; i < WorkerCount; ++i) {
        drivers.push_back({std::make_unique<HttpsClient>(m_server->port(), m_ca), "POST",
                           "/v1/workers/heartbeat", m_workerTokens[i], heartbeat, true,
                           HeartbeatIntervalMs});
    }

    std::vector<qint64> pollLatencies;
    std::vector<qint64> heartbeatLatencies;
    QStringList errors;
    int errorCount = 0;
    bool running = true;
    QElapsedTimer clock;
    clock.start();

    std::function<void(Driver &)> next = [&](Driver &driver) {
        driver.client->send(driver.method, driver.path, driver.token, driver.body,
                            [&](const HttpsClient::Answer &answer) {
            ++driver.answered;
            bool good = answer.status == 200;
            if (good && !driver.isWorker) {
                const QJsonObject job = parse(answer.body);
                good = job.value(u"state"_s).toString() == u"WAITING"
                       && job.value(u"tasks"_s).toArray().size() == 2;
            }
            if (good && driver.isWorker)
                good = parse(answer.body).value(u"cancel"_s).isArray();
            if (!good) {
                ++errorCount;
                if (errors.size() < 10) {
                    errors << u"%1 %2: %3 %4"_s.arg(QString::fromLatin1(driver.method),
                                                    QString::fromLatin1(driver.path))
                                  .arg(answer.status)
                                  .arg(answer.error.isEmpty()
                                           ? QString::fromUtf8(answer.body.left(200))
                                           : answer.error);
                }
            }
            (driver.isWorker ? heartbeatLatencies : pollLatencies).push_back(answer.latencyUs);
            if (!running)
                return;
            // A little jitter, as real clients have, so they do not march in step.
            const int pause = driver.intervalMs * (90 + QRandomGenerator::global()->bounded(21)) / 100;
            QTimer::singleShot(pause, driver.client.get(), [&] { if (running) next(driver); });
        });
    };
    // Connections open over the first 3 s (300 TLS handshakes at once measure only the handshake).
    for (size_t i = 0; i < drivers.size(); ++i) {
        Driver &driver = drivers[i];
        QTimer::singleShot(int(i * 3000 / drivers.size()), driver.client.get(),
                           [&] { next(driver); });
    }
    QTest::qWait(seconds * 1000);
    running = false;
    // Let the requests in flight finish (they count).
    QTRY_VERIFY_WITH_TIMEOUT(std::none_of(drivers.begin(), drivers.end(),
                                          [](const Driver &d) { return d.client->busy(); }),
                             15000);
    const double elapsed = clock.elapsed() / 1000.0;

    int reconnects = 0;
    int fewest = INT_MAX;
    for (const Driver &driver : drivers) {
        reconnects += driver.client->connects() - 1;
        fewest = std::min(fewest, driver.answered);
    }
    const auto report = [&](const char *what, const std::vector<qint64> &latencies) {
        qInfo("%s: %zu requests, %.0f/s, latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
              what, latencies.size(), double(latencies.size()) / elapsed,
              percentile(latencies, 0.50) / 1000.0, percentile(latencies, 0.90) / 1000.0,
              percentile(latencies, 0.99) / 1000.0, percentile(latencies, 1.0) / 1000.0);
    };
    std::vector<qint64> all = pollLatencies;
    all.insert(all.end(), heartbeatLatencies.begin(), heartbeatLatencies.end());
    qInfo("%d clients polling job status and %d workers heartbeating for %d s (%.1f s with the "
          "tail), %d errors, %d reconnects",
          ClientCount, WorkerCount, seconds, elapsed, errorCount, reconnects);
    report("job status", pollLatencies);
    report("heartbeat", heartbeatLatencies);
    report("all", all);

    QVERIFY2(errorCount == 0, qPrintable(errors.join(u'\n')));
    // Every connection was served throughout, not just some: at least a third of the requests
    // each would have made at its pace.
    const int expectedSlowest = seconds * 1000 / HeartbeatIntervalMs / 3;
    QVERIFY2(fewest >= expectedSlowest,
             qPrintable(u"a client got only %1 answers in %2 s"_s.arg(fewest).arg(seconds)));
    // The server is still well after the load.
    QVERIFY(m_server->processId() != 0);
}

QTEST_GUILESS_MAIN(tst_LoadPolling)
#include "tst_load_polling.moc"
