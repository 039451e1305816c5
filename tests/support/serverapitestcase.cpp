#include "serverapitestcase.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "app/tokencommand.h"
#include "pgcluster.h"

#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QSslConfiguration>
#include <QTimer>

using namespace ddl;
using namespace ddl::server;

const QString Password = QStringLiteral("correct horse battery");

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray someBytes(const QByteArray &seed, int size)
{
    QByteArray bytes;
    bytes.reserve(size);
    QByteArray block = QCryptographicHash::hash(seed, QCryptographicHash::Sha256);
    while (bytes.size() < size) {
        bytes += block;
        block = QCryptographicHash::hash(block, QCryptographicHash::Sha256);
    }
    bytes.truncate(size);
    return bytes;
}

QJsonObject wireSpec(const QString &name, int retryCount, int taskNumber)
{
    return QJsonObject{
        {QStringLiteral("kind"), QStringLiteral("ddl")},
        {QStringLiteral("jobName"), name},
        {QStringLiteral("retryCount"), retryCount},
        {QStringLiteral("taskRoles"),
         QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("worker")},
                                {QStringLiteral("taskNumber"), taskNumber},
                                {QStringLiteral("cpuNumber"), 1},
                                {QStringLiteral("memoryMB"), 1024},
                                {QStringLiteral("gpuNumber"), 0}}}},
    };
}

QJsonObject submission(const QJsonObject &spec, const QString &packageSha256)
{
    return QJsonObject{{QStringLiteral("spec"), spec},
                       {QStringLiteral("package"),
                        QJsonObject{{QStringLiteral("sha256"), packageSha256},
                                    {QStringLiteral("commit"), QStringLiteral("0123abcd")}}},
                       {QStringLiteral("dataset"), QJsonValue()}};
}

QString errorProblem(const Answer &answer, int status, const QString &code)
{
    if (answer.status != status)
        return QStringLiteral("expected HTTP %1, got %2").arg(status).arg(answer.describe());
    if (!answer.header("Content-Type").startsWith("application/json"))
        return QStringLiteral("error body is not JSON: ") + answer.describe();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(answer.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return QStringLiteral("error body is not a JSON object: ") + answer.describe();
    const QJsonObject root = document.object();
    if (root.keys() != QStringList{QStringLiteral("error")})
        return QStringLiteral("error body has members besides \"error\": ") + answer.describe();
    const QJsonObject error = root.value(QLatin1String("error")).toObject();
    if (error.value(QLatin1String("code")).toString() != code)
        return QStringLiteral("expected code %1: %2").arg(code, answer.describe());
    if (error.value(QLatin1String("message")).toString().trimmed().isEmpty())
        return QStringLiteral("error without a message: ") + answer.describe();
    return {};
}

QJsonArray taskIdsOf(const QJsonObject &job, int attempt)
{
    QJsonArray ids;
    for (const QJsonValue &task : job.value(QLatin1String("tasks")).toArray()) {
        if (task.toObject().value(QLatin1String("attempt")).toInt() == attempt)
            ids.append(task.toObject().value(QLatin1String("id")));
    }
    return ids;
}

QJsonObject taskById(const QJsonObject &job, qint64 taskId)
{
    for (const QJsonValue &task : job.value(QLatin1String("tasks")).toArray()) {
        if (task.toObject().value(QLatin1String("id")).toInteger() == taskId)
            return task.toObject();
    }
    return {};
}

void ServerApiTestCase::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_dataDir = m_dir.filePath(QStringLiteral("data"));
    ServerConfig config;
    config.dataDir = m_dataDir;
    config.database = testDatabaseUrl(); // PostgreSQL under DDL_TEST_DATABASE=postgresql
    m_database = config.database;
    const QString missing = missingTestDatabase(m_database);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(config.setListen(QStringLiteral("127.0.0.1:0")));
    config.workerTimeoutSeconds = 600; // housekeeping must not take the tests' workers away
    config.maxBlobBytes = 64 * 1024 * 1024;
    config.checkpointMaxBytes = 1024 * 1024; // tst_api_checkpoints sends one over it
    m_config = config;
    m_server = std::make_unique<ServerApp>(config);
    Status started = m_server->start();
    QVERIFY2(started, started ? "" : qPrintable(started.error().message));
    QVERIFY(m_server->port() != 0);

    Result<ServerTrust> trust =
        ServerTrust::fromCaFile(QDir(m_dataDir).filePath(QStringLiteral("tls/server.crt")));
    QVERIFY2(trust, trust ? "" : qPrintable(trust.error().message));
    m_trust = *trust;
    m_base.setScheme(QStringLiteral("https"));
    m_base.setHost(QStringLiteral("127.0.0.1"));
    m_base.setPort(m_server->port());

    // The way an operator makes one: a second connection to the store of the running server.
    Result<QString> enrollToken = createEnrollToken(m_dataDir, m_database);
    QVERIFY2(enrollToken, enrollToken ? "" : qPrintable(enrollToken.error().message));
    m_enrollToken = *enrollToken;

    m_alice = newUser(QStringLiteral("alice@example.org"));
    QVERIFY(!m_alice.isEmpty());
    m_bob = newUser(QStringLiteral("bob@example.org"));
    QVERIFY(!m_bob.isEmpty());
    m_someWorker = enrollWorker(QStringLiteral("any-worker"));
    QVERIFY(!m_someWorker.token.isEmpty());
    // It only signs requests: with no slots, the scheduler never places work on it.
    post(QStringLiteral("/v1/workers/heartbeat"),
         m_someWorker.token,
         {{QStringLiteral("running"), QJsonArray()}, {QStringLiteral("slots"), 0}});
}

void ServerApiTestCase::cleanup()
{
    // Leave no waiting task behind for the next test's worker to lease.
    for (const auto &[token, uuid] : std::as_const(m_jobsToCancel))
        post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), token, {});
    m_jobsToCancel.clear();
    // The server places jobs on any worker with room: retire this test's workers (no slots),
    // so that the next test's jobs go to the workers it enrolls itself.
    for (const Worker &worker : std::as_const(m_workersToRetire)) {
        post(QStringLiteral("/v1/workers/heartbeat"),
             worker.token,
             {{QStringLiteral("running"), QJsonArray()}, {QStringLiteral("slots"), 0}});
    }
    m_workersToRetire.clear();
}

QString ServerApiTestCase::restartServer(const std::function<void(ServerConfig &)> &change)
{
    m_server.reset();
    change(m_config);
    m_server = std::make_unique<ServerApp>(m_config);
    const Status started = m_server->start();
    if (!started)
        return started.error().message;
    m_base.setPort(m_server->port());
    return {};
}

void ServerApiTestCase::cleanupTestCase()
{
    m_server.reset();
}

Answer ServerApiTestCase::sendLogBatch(const Worker &worker,
                                       qint64 taskId,
                                       const LogBatchAt &at,
                                       const QByteArray &bytes)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("offset"), QString::number(at.offset));
    query.addQueryItem(QStringLiteral("streams"), at.streams);
    query.addQueryItem(QStringLiteral("stdout_offset"), QString::number(at.stdoutOffset));
    query.addQueryItem(QStringLiteral("stderr_offset"), QString::number(at.stderrOffset));
    return send("POST",
                QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                worker.token,
                bytes,
                query,
                "application/octet-stream");
}

Answer ServerApiTestCase::send(const QByteArray &verb,
                               const QString &path,
                               const QString &token,
                               const QByteArray &body,
                               const QUrlQuery &query,
                               const QByteArray &contentType,
                               const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QUrl url = m_base;
    url.setPath(path);
    url.setQuery(query);
    QNetworkRequest request(url);
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setCaCertificates(m_trust.caCertificates);
    request.setSslConfiguration(ssl);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
    if (!body.isEmpty() || verb != "GET")
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);

    // HEAD through head(): as a custom verb Qt would wait for the body Content-Length announces.
    std::unique_ptr<QNetworkReply> reply(verb == "HEAD"
                                             ? m_network.head(request)
                                             : m_network.sendCustomRequest(request, verb, body));
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    timeout.start(15000);
    if (!reply->isFinished())
        loop.exec();
    Answer answer;
    if (!reply->isFinished()) {
        reply->abort();
        answer.networkError = QStringLiteral("no answer within 15 s");
        return answer;
    }
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.body = reply->readAll();
    answer.headers = reply->rawHeaderPairs();
    if (answer.status == 0)
        answer.networkError = reply->errorString();
    return answer;
}

Answer ServerApiTestCase::get(const QString &path,
                              const QString &token,
                              const QUrlQuery &query,
                              const QList<QPair<QByteArray, QByteArray>> &headers)
{
    return send("GET", path, token, {}, query, {}, headers);
}

Answer ServerApiTestCase::post(const QString &path,
                               const QString &token,
                               const QJsonObject &body,
                               const QUrlQuery &query)
{
    return send("POST", path, token, QJsonDocument(body).toJson(QJsonDocument::Compact), query);
}

QString ServerApiTestCase::newUser(const QString &email)
{
    const Answer registered =
        post(QStringLiteral("/v1/auth/register"),
             {},
             {{QStringLiteral("email"), email}, {QStringLiteral("password"), Password}});
    if (registered.status != 201) {
        qWarning("register %s: %s", qPrintable(email), qPrintable(registered.describe()));
        return {};
    }
    const Answer login =
        post(QStringLiteral("/v1/auth/login"),
             {},
             {{QStringLiteral("email"), email}, {QStringLiteral("password"), Password}});
    if (login.status != 200) {
        qWarning("login %s: %s", qPrintable(email), qPrintable(login.describe()));
        return {};
    }
    return login.json().value(QLatin1String("access_token")).toString();
}

QString ServerApiTestCase::uploadBlob(const QString &token, const QByteArray &bytes)
{
    const QString path = m_dir.filePath(QStringLiteral("upload-") + sha256Of(bytes));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    file.close();
    ApiClient client(m_base, m_trust);
    client.setBearerToken(token);
    BlobUpload upload(&client, path);
    upload.start();
    const Result<QString> &result = upload.waitForFinished();
    if (!result) {
        qWarning("upload failed: %s", qPrintable(result.error().message));
        return {};
    }
    return *result;
}

QString ServerApiTestCase::submitJob(const QString &token,
                                     const QJsonObject &spec,
                                     const QString &packageSha256,
                                     int priority)
{
    QJsonObject body = submission(spec, packageSha256);
    body.insert(QStringLiteral("priority"), priority);
    const Answer answer = post(QStringLiteral("/v1/jobs"), token, body);
    if (answer.status != 201) {
        qWarning("submit: %s", qPrintable(answer.describe()));
        return {};
    }
    const QString uuid = answer.json().value(QLatin1String("uuid")).toString();
    m_jobsToCancel.append({token, uuid});
    return uuid;
}

QJsonObject ServerApiTestCase::job(const QString &token, const QString &uuid)
{
    const Answer answer = get(QStringLiteral("/v1/jobs/") + uuid, token);
    if (answer.status != 200)
        qWarning("get job: %s", qPrintable(answer.describe()));
    return answer.json();
}

Worker ServerApiTestCase::enrollWorker(const QString &name)
{
    const Answer answer =
        post(QStringLiteral("/v1/workers/enroll"),
             {},
             {{QStringLiteral("enroll_token"), m_enrollToken},
              {QStringLiteral("name"), name},
              {QStringLiteral("hostname"), QString(name + QStringLiteral(".local"))},
              {QStringLiteral("cpus"), 8},
              {QStringLiteral("memory_mb"), 16384},
              {QStringLiteral("gpus"), 0},
              {QStringLiteral("slots"), 2}});
    if (answer.status != 201) {
        qWarning("enroll: %s", qPrintable(answer.describe()));
        return {};
    }
    const Worker worker{answer.json().value(QLatin1String("worker_id")).toInteger(),
                        answer.json().value(QLatin1String("worker_token")).toString()};
    m_workersToRetire.append(worker);
    return worker;
}

QJsonArray ServerApiTestCase::lease(const Worker &worker)
{
    const Answer answer = post(QStringLiteral("/v1/workers/lease"),
                               worker.token,
                               {{QStringLiteral("free_slots"), 4},
                                {QStringLiteral("free_gpus"), 0},
                                {QStringLiteral("free_cpus"), 8},
                                {QStringLiteral("free_memory_mb"), 16384}});
    if (answer.status != 200)
        qWarning("lease: %s", qPrintable(answer.describe()));
    return answer.json().value(QLatin1String("tasks")).toArray();
}

Answer ServerApiTestCase::reportState(const Worker &worker,
                                      qint64 taskId,
                                      const QString &state,
                                      std::optional<int> exitCode,
                                      const QString &message)
{
    QJsonObject body{{QStringLiteral("state"), state}};
    body.insert(QStringLiteral("exit_code"), exitCode ? QJsonValue(*exitCode) : QJsonValue());
    if (!message.isEmpty())
        body.insert(QStringLiteral("message"), message);
    return post(QStringLiteral("/v1/workers/tasks/%1/state").arg(taskId), worker.token, body);
}

std::optional<ServerApiTestCase::RunningTask> ServerApiTestCase::startOneTask(const QString &tag,
                                                                               int retryCount)
{
    RunningTask task;
    task.user = newUser(tag + QStringLiteral("@example.org"));
    task.package = someBytes(tag.toUtf8(), 3000);
    const QString sha256 = uploadBlob(task.user, task.package);
    task.uuid = submitJob(task.user, wireSpec(tag, retryCount), sha256);
    task.worker = enrollWorker(tag + QStringLiteral("-worker"));
    if (task.user.isEmpty() || sha256.isEmpty() || task.uuid.isEmpty() ||
        task.worker.token.isEmpty())
        return std::nullopt;
    const QJsonArray tasks = lease(task.worker);
    if (tasks.size() != 1 ||
        tasks.at(0).toObject().value(QLatin1String("job_uuid")).toString() != task.uuid) {
        qWarning("expected one lease of job %s, got %s",
                 qPrintable(task.uuid),
                 QJsonDocument(tasks).toJson().constData());
        return std::nullopt;
    }
    task.lease = tasks.at(0).toObject();
    task.taskId = task.lease.value(QLatin1String("task_id")).toInteger();
    const Answer running = reportState(task.worker, task.taskId, QStringLiteral("RUNNING"));
    if (running.status != 200) {
        qWarning("RUNNING: %s", qPrintable(running.describe()));
        return std::nullopt;
    }
    return task;
}
