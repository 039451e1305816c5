// Every object endpoint, asked with another user's (or another worker's) token, answers as if
// the object did not exist: 404 not_found, with none of the object's data in the answer, and
// changes nothing. Against the real ddl-server process over TLS on loopback, with objects that
// do exist and have content (a finished job with a log and an artifact, an upload in progress,
// a blob a leased task names), each first read by its owner (200), so that a 404 cannot come
// from an empty object.

#include "httpsclient.h"
#include "serverprocess.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;

namespace {

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

} // namespace

class tst_ObjectScoping : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    // First: it runs Alice's job to its end, which the job tests then read.
    void tasksAndBlobsOfAnotherWorker();
    void jobsOfAnotherUser_data();
    void jobsOfAnotherUser();
    void uploadsOfAnotherUser();

private:
    HttpsClient::Answer call(const QByteArray &method,
                             const QByteArray &path,
                             const QByteArray &token,
                             const QByteArray &body = {},
                             const QByteArray &contentType = "application/json")
    {
        return m_client->call(method, path, token, body, contentType, 20000);
    }
    QByteArray login(const QString &email);
    QByteArray enroll(const QString &name);
    // Creates an upload of bytes as token's owner and sends the first `sent` bytes of it.
    QByteArray startUpload(const QByteArray &token, const QByteArray &bytes, qsizetype sent);

    QTemporaryDir m_dir;
    std::unique_ptr<ServerProcess> m_server;
    std::unique_ptr<HttpsClient> m_client;
    QByteArray m_alice;
    QByteArray m_bob;
    QByteArray m_worker;      // runs Alice's job
    QByteArray m_otherWorker; // enrolled too, holds nothing
    QByteArray m_enrollToken;
    QByteArray m_uuid;
    qint64 m_taskId = 0;
    QByteArray m_package;
    QByteArray m_artifact;
    const QByteArray m_logText = "epoch 1 loss 0.25 alice-private-log-line\n";
};

QByteArray tst_ObjectScoping::login(const QString &email)
{
    const QJsonObject credentials{{u"email"_s, email}, {u"password"_s, u"scoping-password"_s}};
    if (call("POST", "/v1/auth/register", {}, json(credentials)).status != 201)
        return {};
    const HttpsClient::Answer answer = call("POST", "/v1/auth/login", {}, json(credentials));
    return parse(answer.body).value(u"access_token"_s).toString().toLatin1();
}

QByteArray tst_ObjectScoping::enroll(const QString &name)
{
    const QJsonObject request{{u"enroll_token"_s, QString::fromLatin1(m_enrollToken)},
                              {u"name"_s, name},       {u"hostname"_s, name},
                              {u"cpus"_s, 4},          {u"memory_mb"_s, 8192},
                              {u"gpus"_s, 0},          {u"slots"_s, 2}};
    const HttpsClient::Answer answer = call("POST", "/v1/workers/enroll", {}, json(request));
    return parse(answer.body).value(u"worker_token"_s).toString().toLatin1();
}

QByteArray tst_ObjectScoping::startUpload(const QByteArray &token, const QByteArray &bytes,
                                          qsizetype sent)
{
    const HttpsClient::Answer created =
        call("POST", "/v1/uploads", token,
             json({{u"size"_s, bytes.size()}, {u"sha256"_s, QString::fromLatin1(sha256Hex(bytes))}}));
    const QByteArray id = parse(created.body).value(u"id"_s).toString().toLatin1();
    if (created.status != 201 || id.isEmpty()) {
        qWarning("upload not created: %d %s", created.status, created.body.constData());
        return {};
    }
    if (sent > 0) {
        const HttpsClient::Answer put = call("PUT", "/v1/uploads/" + id + "?offset=0", token,
                                             bytes.left(sent), "application/octet-stream");
        if (put.status != 200) {
            qWarning("chunk not taken: %d %s", put.status, put.body.constData());
            return {};
        }
    }
    return id;
}

void tst_ObjectScoping::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<ServerProcess>(m_dir.filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_client = std::make_unique<HttpsClient>(m_server->port(),
                                             QSslCertificate::fromPath(m_server->caFile()));
    m_alice = login(u"alice@example.org"_s);
    m_bob = login(u"bob@example.org"_s);
    QVERIFY(!m_alice.isEmpty() && !m_bob.isEmpty());
    m_enrollToken = ServerProcess::createEnrollToken(m_server->dataDir()).toLatin1();
    m_worker = enroll(u"runner"_s);
    QVERIFY(!m_worker.isEmpty());

    // Alice's job, run to its end by a worker speaking the wire protocol: a log and an artifact.
    m_package = QByteArray("alice's private package ").repeated(100);
    QVERIFY(!startUpload(m_alice, m_package, m_package.size()).isEmpty());
    const QJsonObject role{{u"name"_s, u"worker"_s}, {u"taskNumber"_s, 1}, {u"cpuNumber"_s, 1},
                           {u"memoryMB"_s, 512},     {u"gpuNumber"_s, 0},
                           {u"command"_s, u"python3 train.py"_s}};
    const QJsonObject spec{{u"kind"_s, u"openpai"_s}, {u"jobName"_s, u"alice-private"_s},
                           {u"image"_s, u"ubuntu"_s}, {u"taskRoles"_s, QJsonArray{role}}};
    const QJsonObject submission{
        {u"spec"_s, spec},
        {u"package"_s, QJsonObject{{u"sha256"_s, QString::fromLatin1(sha256Hex(m_package))},
                                   {u"commit"_s, u"0123456789abcdef0123456789abcdef01234567"_s}}},
        {u"dataset"_s, QJsonValue::Null}};
    HttpsClient::Answer answer = call("POST", "/v1/jobs", m_alice, json(submission));
    QVERIFY2(answer.status == 201, answer.body.constData());
    m_uuid = parse(answer.body).value(u"uuid"_s).toString().toLatin1();

    // As ddl-worker does: a heartbeat makes the worker known to the scheduler, a lease collects.
    const QByteArray heartbeat = json({{u"running"_s, QJsonArray()}, {u"cpus"_s, 4},
                                       {u"memory_mb"_s, 8192}, {u"gpus"_s, 0}, {u"slots"_s, 2}});
    QElapsedTimer leasing;
    leasing.start();
    while (m_taskId == 0 && leasing.elapsed() < 10000) {
        QCOMPARE(call("POST", "/v1/workers/heartbeat", m_worker, heartbeat).status, 200);
        const HttpsClient::Answer lease = call("POST", "/v1/workers/lease", m_worker, "{}");
        const QJsonArray tasks = parse(lease.body).value(u"tasks"_s).toArray();
        if (!tasks.isEmpty())
            m_taskId = tasks[0].toObject().value(u"task_id"_s).toInteger();
        else
            QTest::qWait(100);
    }
    QVERIFY2(m_taskId > 0, call("GET", "/v1/jobs/" + m_uuid, m_alice).body.constData());
    const QByteArray task = "/v1/workers/tasks/" + QByteArray::number(m_taskId);
    QCOMPARE(call("POST", task + "/state", m_worker, R"({"state":"RUNNING"})").status, 200);
    answer = call("POST", task + "/log?offset=0", m_worker, m_logText, "application/octet-stream");
    QVERIFY2(answer.status == 200, answer.body.constData());
}

void tst_ObjectScoping::cleanupTestCase()
{
    m_client.reset();
    if (m_server)
        m_server->stop();
}

void tst_ObjectScoping::tasksAndBlobsOfAnotherWorker()
{
    // While the task runs: the blob it names is its worker's to fetch, and nobody else's.
    const QByteArray blob = "/v1/workers/blobs/" + sha256Hex(m_package);
    HttpsClient::Answer answer = call("GET", blob, m_worker);
    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.body, m_package);
    m_otherWorker = enroll(u"bystander"_s);
    QVERIFY(!m_otherWorker.isEmpty());
    for (const QByteArray &token : {m_otherWorker, m_alice, m_bob}) {
        answer = call("GET", blob, token);
        QVERIFY2(answer.status == 404 || (token != m_otherWorker && answer.status == 401),
                 answer.body.constData());
        QVERIFY(!answer.body.contains("private package"));
    }

    // The task is not the other worker's: its log, state and artifacts stay as they are.
    const QByteArray task = "/v1/workers/tasks/" + QByteArray::number(m_taskId);
    const QList<std::pair<QByteArray, QByteArray>> writes{
        {task + "/log?offset=" + QByteArray::number(m_logText.size()), "injected line\n"},
        {task + "/state", R"({"state":"FAILED","exit_code":3,"message":"injected"})"},
        {task + "/artifacts", R"({"files":[]})"}};
    for (const auto &[path, body] : writes) {
        answer = call("POST", path, m_otherWorker, body,
                      path.contains("/log") ? "application/octet-stream" : "application/json");
        // docs/api.md: a task that is not (or no longer) the worker's lease is a 409, which
        // tells a worker to stop it; it must never be taken.
        QVERIFY2(answer.status == 404 || answer.status == 409,
                 qPrintable(QString::fromLatin1(path) + u": "_s + QString::number(answer.status)
                            + u" "_s + QString::fromUtf8(answer.body)));
    }

    // Nor can it put utilisation samples on the task: they are left out, and said so.
    answer = call("POST", "/v1/workers/samples", m_otherWorker,
                  R"({"tasks":[{"task_id":)" + QByteArray::number(m_taskId)
                      + R"(,"samples":[{"at":1,"cpu_percent":999,"memory_bytes":1}]}]})");
    QVERIFY2(answer.status == 200, answer.body.constData());
    QCOMPARE(parse(answer.body).value(u"ignored_tasks"_s).toArray(), (QJsonArray{m_taskId}));
    QVERIFY(!call("GET", "/v1/jobs/" + m_uuid + "/utilisation", m_alice).body.contains("999"));

    // Now the task ends well, with an artifact, reported by its own worker.
    m_artifact = QByteArray("alice's private model weights ").repeated(50);
    const QByteArray id = startUpload(m_worker, m_artifact, m_artifact.size());
    QVERIFY(!id.isEmpty());
    const QJsonObject files{{u"files"_s, QJsonArray{QJsonObject{
                                {u"path"_s, u"model/weights.bin"_s},
                                {u"size"_s, m_artifact.size()},
                                {u"sha256"_s, QString::fromLatin1(sha256Hex(m_artifact))}}}}};
    answer = call("POST", task + "/artifacts", m_worker, json(files));
    QVERIFY2(answer.status == 200, answer.body.constData());
    answer = call("POST", task + "/state", m_worker, R"({"state":"SUCCEEDED","exit_code":0})");
    QVERIFY2(answer.status == 200, answer.body.constData());

    const QJsonObject job = parse(call("GET", "/v1/jobs/" + m_uuid, m_alice).body);
    QCOMPARE(job.value(u"state"_s).toString(), u"SUCCEEDED"_s);
    const QByteArray log = call("GET", "/v1/jobs/" + m_uuid + "/logs?task="
                                           + QByteArray::number(m_taskId), m_alice).body;
    QCOMPARE(log, m_logText); // nothing of the other worker's got in
}

void tst_ObjectScoping::jobsOfAnotherUser_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path"); // after /v1/jobs/<uuid>
    QTest::addColumn<QByteArray>("secret"); // what the owner's answer holds

    QTest::newRow("job") << QByteArray("GET") << QByteArray() << QByteArray("alice-private");
    QTest::newRow("logs") << QByteArray("GET") << QByteArray("/logs?task=%1&offset=0")
                          << QByteArray("alice-private-log-line");
    QTest::newRow("log tail") << QByteArray("GET") << QByteArray("/logs?task=%1&tail=100")
                              << QByteArray("alice-private-log-line");
    QTest::newRow("log stream") << QByteArray("GET") << QByteArray("/logs?task=%1&stream=all")
                                << QByteArray("alice-private-log-line");
    QTest::newRow("log search") << QByteArray("GET")
                                << QByteArray("/logs/search?task=%1&q=private-log-line")
                                << QByteArray("line_start");
    QTest::newRow("artifacts") << QByteArray("GET") << QByteArray("/artifacts")
                               << QByteArray("model/weights.bin");
    QTest::newRow("artifact file") << QByteArray("GET")
                                   << QByteArray("/artifacts/file?path=model/weights.bin")
                                   << QByteArray("private model weights");
    QTest::newRow("utilisation") << QByteArray("GET") << QByteArray("/utilisation")
                                 << QByteArray("\"gpu_indices\"");
    QTest::newRow("cancel") << QByteArray("POST") << QByteArray("/cancel") << QByteArray();
    // The Paddle client's DELETE /v1/jobs/<name>, a cancel.
    QTest::newRow("delete") << QByteArray("DELETE") << QByteArray() << QByteArray();
}

void tst_ObjectScoping::jobsOfAnotherUser()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, secret);
    QVERIFY2(m_taskId > 0 && !m_artifact.isEmpty(), "needs tasksAndBlobsOfAnotherWorker first");
    const QByteArray target = "/v1/jobs/" + m_uuid + QByteArray(path).replace("%1", QByteArray::number(m_taskId));

    if (method == "GET") {
        const HttpsClient::Answer owner = call(method, target, m_alice);
        QVERIFY2(owner.status == 200 || owner.status == 206, owner.body.left(300).constData());
        QVERIFY(owner.body.contains(secret));
    }
    const HttpsClient::Answer other = call(method, target, m_bob, method == "POST" ? "{}" : "");
    QCOMPARE(other.status, 404);
    QCOMPARE(parse(other.body).value(u"error"_s).toObject().value(u"code"_s).toString(),
             u"not_found"_s);
    if (!secret.isEmpty())
        QVERIFY2(!other.body.contains(secret), other.body.constData());
    // The same as for a job that does not exist.
    const HttpsClient::Answer none =
        call(method, "/v1/jobs/00000000-0000-0000-0000-000000000000"
                         + QByteArray(path).replace("%1", QByteArray::number(m_taskId)),
             m_bob, method == "POST" ? "{}" : "");
    QCOMPARE(none.status, 404);
    // Alice's job is as it was (Bob's cancel changed nothing).
    QCOMPARE(parse(call("GET", "/v1/jobs/" + m_uuid, m_alice).body).value(u"state"_s).toString(),
             u"SUCCEEDED"_s);
    // Bob's own listing does not show it.
    const QByteArray list = call("GET", "/v1/jobs", m_bob).body;
    QVERIFY2(!list.contains(m_uuid), list.constData());
}

void tst_ObjectScoping::uploadsOfAnotherUser()
{
    const QByteArray bytes = QByteArray("alice's unfinished upload ").repeated(40);
    const QByteArray id = startUpload(m_alice, bytes, 100);
    QVERIFY(!id.isEmpty());
    HttpsClient::Answer answer = call("GET", "/v1/uploads/" + id, m_alice);
    QCOMPARE(answer.status, 200);
    QCOMPARE(parse(answer.body).value(u"offset"_s).toInteger(), 100);

    answer = call("GET", "/v1/uploads/" + id, m_bob);
    QCOMPARE(answer.status, 404);
    QVERIFY(!answer.body.contains(sha256Hex(bytes)));
    answer = call("PUT", "/v1/uploads/" + id + "?offset=100", m_bob, bytes.mid(100),
                  "application/octet-stream");
    QCOMPARE(answer.status, 404);
    // A worker's token is not a user's either.
    answer = call("GET", "/v1/uploads/" + id, m_worker);
    QVERIFY2(answer.status == 404 || answer.status == 401, answer.body.constData());
    // Alice's upload did not move.
    answer = call("GET", "/v1/uploads/" + id, m_alice);
    QCOMPARE(parse(answer.body).value(u"offset"_s).toInteger(), 100);

    // Bob creating an upload of the same digest gets one of his own, not Alice's.
    const HttpsClient::Answer bobs =
        call("POST", "/v1/uploads", m_bob,
             json({{u"size"_s, bytes.size()}, {u"sha256"_s, QString::fromLatin1(sha256Hex(bytes))}}));
    QCOMPARE(bobs.status, 201);
    QVERIFY(parse(bobs.body).value(u"id"_s).toString().toLatin1() != id);
    QCOMPARE(parse(bobs.body).value(u"offset"_s).toInteger(), 0);
}

QTEST_GUILESS_MAIN(tst_ObjectScoping)
#include "tst_object_scoping.moc"
