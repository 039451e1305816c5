// The wire API of docs/api.md against a real ServerApp started in-process: a real SQLite store in
// a temporary data dir, real TLS on 127.0.0.1 with the server's own self-signed certificate
// trusted through ServerTrust::fromCaFile, and real clients (QNetworkAccessManager for exact
// statuses and bodies, the shared ApiClient, BlobUpload and RangeDownload for transfers).
//
// Every test makes its own users, jobs and workers. Leases hand out any waiting task, so cleanup()
// cancels whatever jobs a test left unfinished, and the worker tests check that they got exactly
// the task of their own job.
#include "api/apiclient.h"
#include "api/blobupload.h"
#include "api/rangedownload.h"
#include "app/serverapp.h"
#include "app/tokencommand.h"
#include "auth/loginthrottle.h"
#include "core/sha256.h"
#include "jobspec/jobspecparser.h"

#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSet>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrlQuery>
#include <QUuid>

using namespace ddl;
using namespace ddl::server;

namespace {

const QString Password = QStringLiteral("correct horse battery");

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// Bytes that differ for every seed, so that each test's blobs are its own.
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

// A valid wire spec of a DDL job: one role "worker" of taskNumber tasks.
QJsonObject wireSpec(const QString &name, int retryCount = 0, int taskNumber = 1)
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

// What the server answered, as raw as the tests need it.
struct Answer
{
    int status = 0;
    QByteArray body;
    QString networkError;
    QList<QPair<QByteArray, QByteArray>> headers;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonObject error() const { return json().value(QLatin1String("error")).toObject(); }
    QByteArray header(const QByteArray &name) const
    {
        for (const auto &[key, value] : headers) {
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        }
        return {};
    }
    bool hasHeader(const QByteArray &name) const
    {
        for (const auto &pair : headers) {
            if (pair.first.compare(name, Qt::CaseInsensitive) == 0)
                return true;
        }
        return false;
    }
    QString describe() const
    {
        return QStringLiteral("HTTP %1 %2%3")
            .arg(QString::number(status),
                 QString::fromUtf8(body.left(400)),
                 networkError.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(networkError));
    }
};

// Why an answer is not the one error docs/api.md promises, or empty when it is: the status, and
// exactly {"error": {"code", "message", "field"?, ...}} with a non-empty message.
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

#define VERIFY_ERROR(answer, status, code)                                                         \
    do {                                                                                           \
        const QString problem_ = errorProblem((answer), (status), QStringLiteral(code));           \
        QVERIFY2(problem_.isEmpty(), qPrintable(problem_));                                        \
    } while (false)

#define VERIFY_STATUS(answer, expected)                                                            \
    do {                                                                                           \
        const Answer &answer_ = (answer);                                                          \
        QVERIFY2(answer_.status == (expected), qPrintable(answer_.describe()));                    \
    } while (false)

// An enrolled worker, as the server knows it.
struct Worker
{
    qint64 id = 0;
    QString token;
};

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

} // namespace

class tst_ServerApi : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void cleanupTestCase();

    void version();
    void loginHashesWhileOtherRequestsAreServed();
    void loginIsThrottledPerAccount();
    void registerLoginRefresh();
    void errorsHaveOneShape_data();
    void errorsHaveOneShape();
    void uploadErrorsOverTheWire();
    void submitGetCancel();
    void listPagesAndFilters_data();
    void listPagesAndFilters();
    void invalidSpecListsEveryError();
    void openPaiConfigSubmittedAsWritten_data();
    void openPaiConfigSubmittedAsWritten();
    void submissionNeedsOwnBlobs_data();
    void submissionNeedsOwnBlobs();
    void otherUserSeesNothing();
    void enrollment_data();
    void enrollment();
    void leaseCarriesTaskAndEnvironment();
    void tasksOfOneJobSeeEachOther();
    void workerReadsPackageByRange();
    void logsAreWrittenAndReadByOffset();
    void logFollowStreamsUntilTheTaskEnds();
    void logStreamsAreKeptApart();
    void logStreamsSurviveResendsAndCrashes();
    void logSearchFindsMatchesEverywhere();
    void logSearchIsBoundedAndScoped();
    void taskSucceedsWithArtifacts();
    void artifactSizeMustMatchItsBlob();
    void taskEndsWithoutAMessage_data();
    void taskEndsWithoutAMessage();
    void failedTaskIsRetriedThenFailsTheJob();
    void heartbeatCancelsTasksOfCancelledJob();
    void otherWorkerCannotTouchTheTask();

public:
    enum class Auth { None, Garbage, User, Worker };
    Q_ENUM(Auth)

private:
    Answer send(const QByteArray &verb,
                const QString &path,
                const QString &token,
                const QByteArray &body = {},
                const QUrlQuery &query = {},
                const QByteArray &contentType = "application/json",
                const QList<QPair<QByteArray, QByteArray>> &headers = {});
    Answer get(const QString &path,
               const QString &token,
               const QUrlQuery &query = {},
               const QList<QPair<QByteArray, QByteArray>> &headers = {});
    Answer post(const QString &path,
                const QString &token,
                const QJsonObject &body,
                const QUrlQuery &query = {});

    // Registers and logs in a new user; returns its access token, empty on failure.
    QString newUser(const QString &email);
    // Uploads bytes as a blob with BlobUpload under token; returns its digest, empty on failure.
    QString uploadBlob(const QString &token, const QByteArray &bytes);
    // Submits a job and remembers it for cleanup(); returns its uuid, empty on failure.
    QString submitJob(const QString &token, const QJsonObject &spec, const QString &packageSha256);
    QJsonObject job(const QString &token, const QString &uuid);
    Worker enrollWorker(const QString &name);
    QJsonArray lease(const Worker &worker);
    // message is left out of the body when empty, as ddl-worker does for a clean exit.
    Answer reportState(const Worker &worker,
                       qint64 taskId,
                       const QString &state,
                       std::optional<int> exitCode = std::nullopt,
                       const QString &message = QStringLiteral("reported by the test"));
    // Where a worker's log batch goes: its offset in the merged log, how its bytes split into
    // streams ("o6,e4": six of stdout, then four of stderr) and the stream logs' offsets.
    struct LogBatchAt
    {
        qint64 offset = 0;
        QString streams;
        qint64 stdoutOffset = 0;
        qint64 stderrOffset = 0;
    };
    Answer sendLogBatch(const Worker &worker,
                        qint64 taskId,
                        const LogBatchAt &at,
                        const QByteArray &bytes);
    // A fresh user with a job of one task leased to a fresh worker (and reported RUNNING).
    bool startOneTask(const QString &tag,
                      QString *userToken,
                      QString *uuid,
                      Worker *worker,
                      QJsonObject *lease,
                      QByteArray *package = nullptr,
                      int retryCount = 0);

    QTemporaryDir m_dir;
    QString m_dataDir;
    std::unique_ptr<ServerApp> m_server;
    QUrl m_base;
    ServerTrust m_trust;
    QNetworkAccessManager m_network;
    QString m_enrollToken;
    QString m_alice;
    QString m_bob;
    Worker m_someWorker;
    int m_users = 0;
    QList<QPair<QString, QString>> m_jobsToCancel; // (token, uuid)
    QList<Worker> m_workersToRetire;
};

void tst_ServerApi::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_dataDir = m_dir.filePath(QStringLiteral("data"));
    ServerConfig config;
    config.dataDir = m_dataDir;
    QVERIFY(config.setListen(QStringLiteral("127.0.0.1:0")));
    config.workerTimeoutSeconds = 600; // housekeeping must not take the tests' workers away
    config.maxBlobBytes = 64 * 1024 * 1024;
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
    Result<QString> enrollToken = createEnrollToken(m_dataDir);
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

void tst_ServerApi::cleanup()
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

void tst_ServerApi::cleanupTestCase()
{
    m_server.reset();
}

Answer tst_ServerApi::sendLogBatch(const Worker &worker,
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

Answer tst_ServerApi::send(const QByteArray &verb,
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

    std::unique_ptr<QNetworkReply> reply(m_network.sendCustomRequest(request, verb, body));
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

Answer tst_ServerApi::get(const QString &path,
                          const QString &token,
                          const QUrlQuery &query,
                          const QList<QPair<QByteArray, QByteArray>> &headers)
{
    return send("GET", path, token, {}, query, {}, headers);
}

Answer tst_ServerApi::post(const QString &path,
                           const QString &token,
                           const QJsonObject &body,
                           const QUrlQuery &query)
{
    return send("POST", path, token, QJsonDocument(body).toJson(QJsonDocument::Compact), query);
}

QString tst_ServerApi::newUser(const QString &email)
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

QString tst_ServerApi::uploadBlob(const QString &token, const QByteArray &bytes)
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

QString tst_ServerApi::submitJob(const QString &token,
                                 const QJsonObject &spec,
                                 const QString &packageSha256)
{
    const Answer answer = post(QStringLiteral("/v1/jobs"), token, submission(spec, packageSha256));
    if (answer.status != 201) {
        qWarning("submit: %s", qPrintable(answer.describe()));
        return {};
    }
    const QString uuid = answer.json().value(QLatin1String("uuid")).toString();
    m_jobsToCancel.append({token, uuid});
    return uuid;
}

QJsonObject tst_ServerApi::job(const QString &token, const QString &uuid)
{
    const Answer answer = get(QStringLiteral("/v1/jobs/") + uuid, token);
    if (answer.status != 200)
        qWarning("get job: %s", qPrintable(answer.describe()));
    return answer.json();
}

Worker tst_ServerApi::enrollWorker(const QString &name)
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

QJsonArray tst_ServerApi::lease(const Worker &worker)
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

Answer tst_ServerApi::reportState(const Worker &worker,
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

bool tst_ServerApi::startOneTask(const QString &tag,
                                 QString *userToken,
                                 QString *uuid,
                                 Worker *worker,
                                 QJsonObject *leased,
                                 QByteArray *package,
                                 int retryCount)
{
    *userToken = newUser(tag + QStringLiteral("@example.org"));
    const QByteArray bytes = someBytes(tag.toUtf8(), 3000);
    if (package)
        *package = bytes;
    const QString sha256 = uploadBlob(*userToken, bytes);
    *uuid = submitJob(*userToken, wireSpec(tag, retryCount), sha256);
    *worker = enrollWorker(tag + QStringLiteral("-worker"));
    if (userToken->isEmpty() || sha256.isEmpty() || uuid->isEmpty() || worker->token.isEmpty())
        return false;
    const QJsonArray tasks = lease(*worker);
    if (tasks.size() != 1 ||
        tasks.at(0).toObject().value(QLatin1String("job_uuid")).toString() != *uuid) {
        qWarning("expected one lease of job %s, got %s",
                 qPrintable(*uuid),
                 QJsonDocument(tasks).toJson().constData());
        return false;
    }
    *leased = tasks.at(0).toObject();
    const Answer running = reportState(
        *worker, leased->value(QLatin1String("task_id")).toInteger(), QStringLiteral("RUNNING"));
    if (running.status != 200) {
        qWarning("RUNNING: %s", qPrintable(running.describe()));
        return false;
    }
    return true;
}

// ---- service and users ------------------------------------------------------------------------

void tst_ServerApi::version()
{
    const Answer answer = get(QStringLiteral("/v1/version"), {});
    VERIFY_STATUS(answer, 200);
    QVERIFY(answer.header("Content-Type").startsWith("application/json"));
    QCOMPARE(answer.json().value(QLatin1String("server")).toString(), QStringLiteral(DDL_VERSION));
    QCOMPARE(answer.json().value(QLatin1String("api")).toInt(), 1);
}

void tst_ServerApi::loginHashesWhileOtherRequestsAreServed()
{
    // Argon2id runs on a pool thread: a request sent after a login is answered before it.
    ApiClient loginClient(m_base, m_trust);
    ApiClient other(m_base, m_trust);
    std::unique_ptr<ApiRequest> login(
        loginClient.postJson(QStringLiteral("/v1/auth/login"),
                             {{QStringLiteral("email"), QStringLiteral("nobody-here@example.org")},
                              {QStringLiteral("password"), QStringLiteral("not the password")}}));
    QTest::qWait(20); // the login's head and body are in before the version request
    std::unique_ptr<ApiRequest> version(other.get(QStringLiteral("/v1/version")));
    QVERIFY(version->waitForFinished());
    QVERIFY(!login->isFinished());
    QVERIFY(!login->waitForFinished());
    QCOMPARE(login->result().error().code, QStringLiteral("unauthorized"));
}

void tst_ServerApi::loginIsThrottledPerAccount()
{
    ApiClient client(m_base, m_trust);
    const QJsonObject wrong{{QStringLiteral("email"), QStringLiteral("guessed@example.org")},
                            {QStringLiteral("password"), QStringLiteral("guess guess")}};
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount; ++i) {
        Result<ApiResponse> refused = client.postJsonSync(QStringLiteral("/v1/auth/login"), wrong);
        QCOMPARE(refused.error().code, QStringLiteral("unauthorized"));
    }
    Result<ApiResponse> throttled = client.postJsonSync(QStringLiteral("/v1/auth/login"), wrong);
    QCOMPARE(throttled.error().code, QStringLiteral("rate_limited"));
}

void tst_ServerApi::registerLoginRefresh()
{
    const QString email = QStringLiteral("Grace@Example.org");
    const QJsonObject credentials{{QStringLiteral("email"), email},
                                  {QStringLiteral("password"), Password}};
    Answer registered = post(QStringLiteral("/v1/auth/register"), {}, credentials);
    VERIFY_STATUS(registered, 201);
    QCOMPARE(registered.json().value(QLatin1String("email")).toString(), email);
    VERIFY_ERROR(
        post(QStringLiteral("/v1/auth/register"),
             {},
             {{QStringLiteral("email"), email.toLower()}, {QStringLiteral("password"), Password}}),
        409,
        "conflict");

    Answer login = post(QStringLiteral("/v1/auth/login"), {}, credentials);
    VERIFY_STATUS(login, 200);
    const QString access = login.json().value(QLatin1String("access_token")).toString();
    const QString refresh = login.json().value(QLatin1String("refresh_token")).toString();
    QVERIFY(!access.isEmpty());
    QVERIFY(!refresh.isEmpty());
    QCOMPARE(login.json().value(QLatin1String("expires_in")).toInt(), 600);
    VERIFY_STATUS(get(QStringLiteral("/v1/jobs"), access), 200);

    VERIFY_ERROR(post(QStringLiteral("/v1/auth/login"),
                      {},
                      {{QStringLiteral("email"), email},
                       {QStringLiteral("password"), QStringLiteral("wrong password")}}),
                 401,
                 "unauthorized");
    VERIFY_ERROR(post(QStringLiteral("/v1/auth/login"),
                      {},
                      {{QStringLiteral("email"), QStringLiteral("nobody@example.org")},
                       {QStringLiteral("password"), Password}}),
                 401,
                 "unauthorized");

    Answer refreshed =
        post(QStringLiteral("/v1/auth/refresh"), {}, {{QStringLiteral("refresh_token"), refresh}});
    VERIFY_STATUS(refreshed, 200);
    const QString newAccess = refreshed.json().value(QLatin1String("access_token")).toString();
    QVERIFY(!newAccess.isEmpty());
    QVERIFY(newAccess != access);
    QVERIFY(refreshed.json().value(QLatin1String("refresh_token")).toString() != refresh);
    VERIFY_STATUS(get(QStringLiteral("/v1/jobs"), newAccess), 200);
    // The spent refresh token and its session are gone.
    VERIFY_ERROR(
        post(QStringLiteral("/v1/auth/refresh"), {}, {{QStringLiteral("refresh_token"), refresh}}),
        401,
        "session_expired");
    VERIFY_ERROR(get(QStringLiteral("/v1/jobs"), access), 401, "unauthorized");
}

void tst_ServerApi::errorsHaveOneShape_data()
{
    QTest::addColumn<QByteArray>("verb");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("query");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<Auth>("auth");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");

    const QString someUuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QTest::newRow("unknown route")
        << QByteArray("GET") << QStringLiteral("/v1/nothing-here") << QString() << QByteArray()
        << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("unknown route, no token")
        << QByteArray("POST") << QStringLiteral("/v2/jobs") << QString() << QByteArray("{}")
        << Auth::None << 404 << QStringLiteral("not_found");
    QTest::newRow("bad JSON") << QByteArray("POST") << QStringLiteral("/v1/auth/login") << QString()
                              << QByteArray("{\"email\": ") << Auth::None << 400
                              << QStringLiteral("bad_request");
    QTest::newRow("JSON array body")
        << QByteArray("POST") << QStringLiteral("/v1/auth/register") << QString()
        << QByteArray("[1, 2]") << Auth::None << 400 << QStringLiteral("bad_request");
    QTest::newRow("empty body") << QByteArray("POST") << QStringLiteral("/v1/jobs") << QString()
                                << QByteArray() << Auth::User << 400
                                << QStringLiteral("bad_request");
    QTest::newRow("short password")
        << QByteArray("POST") << QStringLiteral("/v1/auth/register") << QString()
        << QByteArray(R"({"email":"x@example.org","password":"short"})") << Auth::None << 400
        << QStringLiteral("bad_request");
    QTest::newRow("no token") << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString()
                              << QByteArray() << Auth::None << 401
                              << QStringLiteral("unauthorized");
    QTest::newRow("garbage token")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString() << QByteArray()
        << Auth::Garbage << 401 << QStringLiteral("unauthorized");
    QTest::newRow("worker token on a user route")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString() << QByteArray()
        << Auth::Worker << 401 << QStringLiteral("unauthorized");
    QTest::newRow("user token on a worker route")
        << QByteArray("POST") << QStringLiteral("/v1/workers/heartbeat") << QString()
        << QByteArray(R"({"running":[]})") << Auth::User << 401 << QStringLiteral("unauthorized");
    QTest::newRow("no token on uploads")
        << QByteArray("POST") << QStringLiteral("/v1/uploads") << QString()
        << QByteArray(R"({"size":1})") << Auth::None << 401 << QStringLiteral("unauthorized");
    QTest::newRow("no token on a job")
        << QByteArray("GET") << QStringLiteral("/v1/jobs/") + someUuid << QString() << QByteArray()
        << Auth::None << 401 << QStringLiteral("unauthorized");
    QTest::newRow("unknown job") << QByteArray("GET") << QStringLiteral("/v1/jobs/") + someUuid
                                 << QString() << QByteArray() << Auth::User << 404
                                 << QStringLiteral("not_found");
    QTest::newRow("cancel unknown job")
        << QByteArray("POST") << QStringLiteral("/v1/jobs/%1/cancel").arg(someUuid) << QString()
        << QByteArray("{}") << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("unknown upload")
        << QByteArray("GET") << QStringLiteral("/v1/uploads/nope") << QString() << QByteArray()
        << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("chunk without offset")
        << QByteArray("PUT") << QStringLiteral("/v1/uploads/nope") << QString() << QByteArray("abc")
        << Auth::User << 400 << QStringLiteral("bad_request");
    QTest::newRow("bad limit") << QByteArray("GET") << QStringLiteral("/v1/jobs")
                               << QStringLiteral("limit=ten") << QByteArray() << Auth::User << 400
                               << QStringLiteral("bad_request");
    QTest::newRow("negative offset")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QStringLiteral("offset=-1")
        << QByteArray() << Auth::User << 400 << QStringLiteral("bad_request");
    QTest::newRow("unknown submission field")
        << QByteArray("POST") << QStringLiteral("/v1/jobs") << QString()
        << QByteArray(R"({"spec":{},"urgency":1})") << Auth::User << 400
        << QStringLiteral("bad_request");
    QTest::newRow("upload with a bad digest")
        << QByteArray("POST") << QStringLiteral("/v1/uploads") << QString()
        << QByteArray(R"({"size":3,"sha256":"ABC"})") << Auth::User << 400
        << QStringLiteral("bad_request");
    QTest::newRow("task id that is no number")
        << QByteArray("POST") << QStringLiteral("/v1/workers/tasks/seven/state") << QString()
        << QByteArray(R"({"state":"RUNNING"})") << Auth::Worker << 400
        << QStringLiteral("bad_request");
}

void tst_ServerApi::errorsHaveOneShape()
{
    QFETCH(QByteArray, verb);
    QFETCH(QString, path);
    QFETCH(QString, query);
    QFETCH(QByteArray, body);
    QFETCH(Auth, auth);
    QFETCH(int, status);
    QFETCH(QString, code);

    QString token;
    switch (auth) {
    case Auth::None:
        break;
    case Auth::Garbage:
        token = QStringLiteral("ddla_not-a-real-token");
        break;
    case Auth::User:
        token = m_alice;
        break;
    case Auth::Worker:
        token = m_someWorker.token;
        break;
    }
    const Answer answer = send(verb, path, token, body, QUrlQuery(query));
    const QString problem = errorProblem(answer, status, code);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// ---- uploads and jobs -------------------------------------------------------------------------

void tst_ServerApi::uploadErrorsOverTheWire()
{
    const QByteArray bytes = "0123456789";
    const Answer created =
        post(QStringLiteral("/v1/uploads"),
             m_alice,
             {{QStringLiteral("size"), bytes.size()}, {QStringLiteral("sha256"), sha256Of(bytes)}});
    VERIFY_STATUS(created, 201);
    const QString id = created.json().value(QLatin1String("id")).toString();
    QVERIFY(!id.isEmpty());
    QCOMPARE(created.json().value(QLatin1String("offset")).toInteger(), 0);
    QCOMPARE(created.json().value(QLatin1String("complete")).toBool(true), false);
    const QString path = QStringLiteral("/v1/uploads/") + id;
    const auto put = [&](const QByteArray &chunk, qint64 offset) {
        return send("PUT",
                    path,
                    m_alice,
                    chunk,
                    QUrlQuery(QStringLiteral("offset=%1").arg(offset)),
                    "application/octet-stream");
    };

    const Answer first = put(bytes.left(4), 0);
    VERIFY_STATUS(first, 200);
    QCOMPARE(first.json().value(QLatin1String("offset")).toInteger(), 4);
    QCOMPARE(first.json().value(QLatin1String("complete")).toBool(true), false);

    const Answer mismatch = put(bytes.mid(6), 6);
    VERIFY_ERROR(mismatch, 409, "offset_mismatch");
    QCOMPARE(mismatch.error().value(QLatin1String("offset")).toInteger(), 4);
    VERIFY_ERROR(put(bytes.mid(4) + "extra", 4), 413, "payload_too_large");
    // Bob cannot see or fill Alice's upload.
    VERIFY_ERROR(get(path, m_bob), 404, "not_found");
    VERIFY_ERROR(send("PUT",
                      path,
                      m_bob,
                      bytes.mid(4),
                      QUrlQuery(QStringLiteral("offset=4")),
                      "application/octet-stream"),
                 404,
                 "not_found");

    const Answer state = get(path, m_alice);
    VERIFY_STATUS(state, 200);
    QCOMPARE(state.json().value(QLatin1String("offset")).toInteger(), 4);
    QCOMPARE(state.json().value(QLatin1String("size")).toInteger(), 10);

    // The last byte arrives but the bytes are not the declared ones: the upload is discarded.
    VERIFY_ERROR(put("45678X", 4), 422, "digest_mismatch");
    VERIFY_ERROR(get(path, m_alice), 404, "not_found");
}

void tst_ServerApi::submitGetCancel()
{
    const QByteArray package = someBytes("submitGetCancel", 5000);
    const QString sha256 = uploadBlob(m_alice, package);
    QCOMPARE(sha256, sha256Of(package));

    // The spec as ddlcli makes it from a task.yaml.
    Result<JobSpec> spec = JobSpecParser::parseTaskYaml("job_data:\n"
                                                        "  job_name: yaml-job\n"
                                                        "  dataset:\n"
                                                        "    dataset_location: ./data\n"
                                                        "  worker_required: 2\n"
                                                        "  cpu_per_worker: 1\n"
                                                        "  memory_mb_per_worker: 1024\n",
                                                        QStringLiteral("fallback"));
    QVERIFY2(spec, spec ? "" : qPrintable(spec.error().message));
    const Answer submitted =
        post(QStringLiteral("/v1/jobs"), m_alice, submission(spec->toJson(), sha256));
    VERIFY_STATUS(submitted, 201);
    const QJsonObject created = submitted.json();
    const QString uuid = created.value(QLatin1String("uuid")).toString();
    QVERIFY(!QUuid::fromString(uuid).isNull());
    m_jobsToCancel.append({m_alice, uuid});
    QCOMPARE(created.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(created.value(QLatin1String("name")).toString(), QStringLiteral("yaml-job"));
    QCOMPARE(created.value(QLatin1String("kind")).toString(), QStringLiteral("ddl"));
    QCOMPARE(created.value(QLatin1String("commit")).toString(), QStringLiteral("0123abcd"));
    QCOMPARE(created.value(QLatin1String("attempt")).toInt(), 1);
    QVERIFY(created.value(QLatin1String("created_at")).isString());
    QVERIFY(created.value(QLatin1String("finished_at")).isNull());

    // Read back: the same job, with its two waiting tasks.
    const QJsonObject read = job(m_alice, uuid);
    QCOMPARE(read.value(QLatin1String("uuid")).toString(), uuid);
    QCOMPARE(read.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(read.value(QLatin1String("spec")).toObject(), spec->toJson());
    const QJsonArray tasks = read.value(QLatin1String("tasks")).toArray();
    QCOMPARE(tasks.size(), 2);
    for (int i = 0; i < tasks.size(); ++i) {
        const QJsonObject task = tasks.at(i).toObject();
        QCOMPARE(task.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
        QCOMPARE(task.value(QLatin1String("role")).toString(), QStringLiteral("worker"));
        QCOMPARE(task.value(QLatin1String("role_index")).toInt(), i);
        QCOMPARE(task.value(QLatin1String("attempt")).toInt(), 1);
    }

    const Answer cancelled = post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), m_alice, {});
    VERIFY_STATUS(cancelled, 200);
    QCOMPARE(cancelled.json().value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));
    QVERIFY(cancelled.json().value(QLatin1String("finished_at")).isString());
    for (const QJsonValue &task : cancelled.json().value(QLatin1String("tasks")).toArray())
        QCOMPARE(task.toObject().value(QLatin1String("state")).toString(),
                 QStringLiteral("STOPPED"));
    QCOMPARE(job(m_alice, uuid).value(QLatin1String("state")).toString(),
             QStringLiteral("STOPPED"));

    VERIFY_ERROR(
        post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), m_alice, {}), 409, "conflict");
}

void tst_ServerApi::listPagesAndFilters_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QList<int>>("expected"); // indices of the submitted jobs, in answer order
    QTest::addColumn<int>("total");

    // Jobs 0, 1 and 2 are submitted in that order; job 1 is then cancelled.
    QTest::newRow("all") << QString() << QList<int>{2, 1, 0} << 3;
    QTest::newRow("first page") << QStringLiteral("limit=2&offset=0") << QList<int>{2, 1} << 3;
    QTest::newRow("second page") << QStringLiteral("limit=2&offset=2") << QList<int>{0} << 3;
    QTest::newRow("past the end") << QStringLiteral("limit=2&offset=5") << QList<int>{} << 3;
    QTest::newRow("stopped") << QStringLiteral("state=STOPPED") << QList<int>{1} << 1;
    QTest::newRow("waiting") << QStringLiteral("state=WAITING") << QList<int>{2, 0} << 2;
    QTest::newRow("waiting, paged")
        << QStringLiteral("state=WAITING&limit=1&offset=1") << QList<int>{0} << 2;
    QTest::newRow("running") << QStringLiteral("state=RUNNING") << QList<int>{} << 0;
}

void tst_ServerApi::listPagesAndFilters()
{
    QFETCH(QString, query);
    QFETCH(QList<int>, expected);
    QFETCH(int, total);

    const QString token = newUser(QStringLiteral("lister%1@example.org").arg(++m_users));
    QVERIFY(!token.isEmpty());
    const QString sha256 = uploadBlob(token, someBytes("list", 100));
    QVERIFY(!sha256.isEmpty());
    QStringList uuids;
    for (int i = 0; i < 3; ++i) {
        uuids << submitJob(token, wireSpec(QStringLiteral("list-%1").arg(i)), sha256);
        QVERIFY(!uuids.last().isEmpty());
    }
    VERIFY_STATUS(post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuids[1]), token, {}), 200);

    const Answer answer = get(QStringLiteral("/v1/jobs"), token, QUrlQuery(query));
    VERIFY_STATUS(answer, 200);
    QCOMPARE(answer.json().value(QLatin1String("total")).toInt(), total);
    QStringList listed;
    for (const QJsonValue &job : answer.json().value(QLatin1String("jobs")).toArray())
        listed << job.toObject().value(QLatin1String("uuid")).toString();
    QStringList wanted;
    for (const int index : std::as_const(expected))
        wanted << uuids[index];
    QCOMPARE(listed, wanted);

    // A state the server does not know is refused, not an empty list.
    const Answer bad =
        get(QStringLiteral("/v1/jobs"), token, QUrlQuery(QStringLiteral("state=DONE")));
    VERIFY_ERROR(bad, 400, "bad_request");
    QCOMPARE(bad.error().value(QLatin1String("field")).toString(), QStringLiteral("state"));
}

void tst_ServerApi::invalidSpecListsEveryError()
{
    const QString sha256 = uploadBlob(m_alice, someBytes("invalid", 100));
    QVERIFY(!sha256.isEmpty());
    QJsonObject spec = wireSpec(QStringLiteral("bad job"), -1);
    QJsonArray roles = spec.value(QLatin1String("taskRoles")).toArray();
    QJsonObject role = roles.at(0).toObject();
    role.insert(QStringLiteral("gpuNumber"), -1);
    role.insert(QStringLiteral("taskNumber"), 0);
    roles[0] = role;
    spec.insert(QStringLiteral("taskRoles"), roles);
    const qint64 before =
        get(QStringLiteral("/v1/jobs"), m_alice).json().value(QLatin1String("total")).toInteger();

    const Answer answer = post(QStringLiteral("/v1/jobs"), m_alice, submission(spec, sha256));
    QCOMPARE(answer.status, 400);
    const QJsonObject error = answer.error();
    QCOMPARE(error.value(QLatin1String("code")).toString(), QStringLiteral("invalid_spec"));
    QVERIFY(!error.value(QLatin1String("message")).toString().isEmpty());
    QSet<QString> fields;
    for (const QJsonValue &entry : error.value(QLatin1String("errors")).toArray()) {
        const QJsonObject item = entry.toObject();
        QVERIFY2(!item.value(QLatin1String("message")).toString().isEmpty(),
                 qPrintable(QString::fromUtf8(answer.body)));
        fields.insert(item.value(QLatin1String("field")).toString());
    }
    const QSet<QString> expected{QStringLiteral("jobName"),
                                 QStringLiteral("retryCount"),
                                 QStringLiteral("taskRoles[0].taskNumber"),
                                 QStringLiteral("taskRoles[0].gpuNumber")};
    QVERIFY2(fields == expected, answer.body.constData());

    // Nothing was stored.
    QCOMPARE(
        get(QStringLiteral("/v1/jobs"), m_alice).json().value(QLatin1String("total")).toInteger(),
        before);
}

void tst_ServerApi::openPaiConfigSubmittedAsWritten_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("expected"); // the job's name, or the first error's field
    QTest::addColumn<QStringList>("eventFields");

    QTest::newRow("v1 JSON with comments")
        << QStringLiteral("{\n  // written by hand\n  \"jobName\": \"v1-config\", \"image\": "
                          "\"ubuntu\", \"virtualCluster\": \"default\", /* no effect */\n"
                          "  \"taskRoles\": [{\"name\": \"main\", \"taskNumber\": 1, "
                          "\"cpuNumber\": 1, \"memoryMB\": 256, \"gpuNumber\": 0, "
                          "\"command\": \"echo http://x // y\"}]}")
        << 201 << QStringLiteral("v1-config")
        << QStringList{QStringLiteral("image"), QStringLiteral("virtualCluster")};
    QTest::newRow("protocol v2 YAML")
        << QStringLiteral("protocolVersion: 2\nname: v2-config\ntype: job\nprerequisites:\n"
                          "  - {name: img, type: dockerimage, uri: ubuntu}\n"
                          "parameters: {word: hi}\ntaskRoles:\n  main:\n    dockerImage: img\n"
                          "    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n"
                          "    commands: ['echo <% $parameters.word %>']\n")
        << 201 << QStringLiteral("v2-config") << QStringList{QStringLiteral("image")};
    QTest::newRow("v2 error names the v2 field")
        << QStringLiteral("protocolVersion: 2\nname: bad\ntype: job\nprerequisites:\n"
                          "  - {name: img, type: dockerimage, uri: ubuntu}\n"
                          "taskRoles:\n  main:\n    dockerImage: img\n"
                          "    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: -1}\n"
                          "    commands: [echo]\n")
        << 400 << QStringLiteral("taskRoles.main.resourcePerInstance.gpu") << QStringList();
    QTest::newRow("neither JSON nor v2")
        << QStringLiteral("job_data: {}\n") << 400 << QString() << QStringList();
}

void tst_ServerApi::openPaiConfigSubmittedAsWritten()
{
    QFETCH(QString, config);
    QFETCH(int, status);
    QFETCH(QString, expected);
    QFETCH(QStringList, eventFields);

    const Answer answer =
        post(QStringLiteral("/v1/jobs"), m_alice, QJsonObject{{QStringLiteral("config"), config}});
    QVERIFY2(answer.status == status, qPrintable(answer.describe()));
    if (status != 201) {
        const QJsonObject error = answer.error();
        QCOMPARE(error.value(QLatin1String("code")).toString(), QStringLiteral("invalid_spec"));
        QCOMPARE(error.value(QLatin1String("field")).toString(), expected);
        return;
    }
    const QJsonObject job = answer.json();
    QCOMPARE(job.value(QLatin1String("name")).toString(), expected);
    QCOMPARE(job.value(QLatin1String("kind")).toString(), QStringLiteral("openpai"));
    QStringList fields;
    for (const QJsonValue &event : job.value(QLatin1String("events")).toArray())
        fields << event.toObject().value(QLatin1String("message")).toString().section(u':', 0, 0);
    QCOMPARE(fields, eventFields);
    // Cancelled, so that no later test's worker is given its task.
    VERIFY_STATUS(post(QStringLiteral("/v1/jobs/%1/cancel")
                           .arg(job.value(QLatin1String("uuid")).toString()),
                       m_alice,
                       QJsonObject()),
                  200);

    // A config comes alone: not beside a spec, and as text.
    VERIFY_ERROR(post(QStringLiteral("/v1/jobs"),
                      m_alice,
                      QJsonObject{{QStringLiteral("config"), config},
                                  {QStringLiteral("spec"), job.value(QLatin1String("spec"))}}),
                 400,
                 "bad_request");
    VERIFY_ERROR(post(QStringLiteral("/v1/jobs"),
                      m_alice,
                      QJsonObject{{QStringLiteral("config"), QJsonObject()}}),
                 400,
                 "bad_request");
}

void tst_ServerApi::submissionNeedsOwnBlobs_data()
{
    QTest::addColumn<QString>("package"); // "own", "bob's", "never", "garbage", "none"
    QTest::addColumn<QString>("dataset"); // the same, "none" for null
    QTest::addColumn<QString>("field");

    QTest::newRow("package never uploaded")
        << QStringLiteral("never") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("package of another user")
        << QStringLiteral("bob's") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("package not a digest")
        << QStringLiteral("garbage") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("no package") << QStringLiteral("none") << QStringLiteral("none")
                                << QStringLiteral("package");
    QTest::newRow("dataset never uploaded")
        << QStringLiteral("own") << QStringLiteral("never") << QStringLiteral("dataset.sha256");
    QTest::newRow("dataset of another user")
        << QStringLiteral("own") << QStringLiteral("bob's") << QStringLiteral("dataset.sha256");
}

void tst_ServerApi::submissionNeedsOwnBlobs()
{
    QFETCH(QString, package);
    QFETCH(QString, dataset);
    QFETCH(QString, field);

    const QString own = uploadBlob(m_alice, someBytes("alice's own", 64));
    const QString bobs = uploadBlob(m_bob, someBytes("bob's own", 64));
    QVERIFY(!own.isEmpty());
    QVERIFY(!bobs.isEmpty());
    const auto blob = [&](const QString &which) -> QJsonValue {
        if (which == QLatin1String("none"))
            return QJsonValue();
        QString sha256 = which == QLatin1String("own")     ? own
                         : which == QLatin1String("bob's") ? bobs
                         : which == QLatin1String("never") ? sha256Of("never uploaded")
                                                           : QStringLiteral("not-a-digest");
        return QJsonObject{{QStringLiteral("sha256"), sha256},
                           {QStringLiteral("commit"), QStringLiteral("0123abcd")}};
    };
    const QJsonObject request{{QStringLiteral("spec"), wireSpec(QStringLiteral("blobs"))},
                              {QStringLiteral("package"), blob(package)},
                              {QStringLiteral("dataset"), blob(dataset)}};
    const Answer answer = post(QStringLiteral("/v1/jobs"), m_alice, request);
    VERIFY_ERROR(answer, 400, "bad_request");
    QCOMPARE(answer.error().value(QLatin1String("field")).toString(), field);
}

void tst_ServerApi::otherUserSeesNothing()
{
    const QString sha256 = uploadBlob(m_alice, someBytes("private", 100));
    const QString uuid = submitJob(m_alice, wireSpec(QStringLiteral("private")), sha256);
    QVERIFY(!uuid.isEmpty());
    const qint64 taskId = taskIdsOf(job(m_alice, uuid), 1).at(0).toInteger();
    QVERIFY(taskId > 0);

    // Bob gets exactly what a job that does not exist gives: 404, for every way in.
    const QList<std::tuple<QByteArray, QString, QString>> requests{
        {"GET", QStringLiteral("/v1/jobs/%1").arg(uuid), QString()},
        {"POST", QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), QString()},
        {"GET",
         QStringLiteral("/v1/jobs/%1/logs").arg(uuid),
         QStringLiteral("task=%1&offset=0").arg(taskId)},
        {"GET", QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), QString()},
        {"GET",
         QStringLiteral("/v1/jobs/%1/artifacts/file").arg(uuid),
         QStringLiteral("path=out.txt")},
    };
    for (const auto &[verb, path, query] : requests) {
        const Answer answer = send(
            verb, path, m_bob, verb == "POST" ? QByteArray("{}") : QByteArray(), QUrlQuery(query));
        const QString problem = errorProblem(answer, 404, QStringLiteral("not_found"));
        QVERIFY2(problem.isEmpty(), qPrintable(path + QStringLiteral(": ") + problem));
        QVERIFY2(!answer.body.contains(sha256.toUtf8()), answer.body.constData());
    }
    const Answer list = get(QStringLiteral("/v1/jobs"), m_bob);
    VERIFY_STATUS(list, 200);
    for (const QJsonValue &job : list.json().value(QLatin1String("jobs")).toArray())
        QVERIFY(job.toObject().value(QLatin1String("uuid")).toString() != uuid);

    // Bob's attempt to cancel changed nothing.
    QCOMPARE(job(m_alice, uuid).value(QLatin1String("state")).toString(),
             QStringLiteral("WAITING"));
}

// ---- workers ----------------------------------------------------------------------------------

void tst_ServerApi::enrollment_data()
{
    QTest::addColumn<QString>("token"); // "good", or the token itself
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");

    QTest::newRow("good") << QStringLiteral("good") << QStringLiteral("gpu-box") << 201
                          << QString();
    QTest::newRow("wrong token") << QStringLiteral("ddle_wrong") << QStringLiteral("gpu-box") << 401
                                 << QStringLiteral("unauthorized");
    QTest::newRow("no token") << QString() << QStringLiteral("gpu-box") << 401
                              << QStringLiteral("unauthorized");
    QTest::newRow("no name") << QStringLiteral("good") << QString() << 400
                             << QStringLiteral("bad_request");
}

void tst_ServerApi::enrollment()
{
    QFETCH(QString, token);
    QFETCH(QString, name);
    QFETCH(int, status);
    QFETCH(QString, code);

    const Answer answer = post(
        QStringLiteral("/v1/workers/enroll"),
        {},
        {{QStringLiteral("enroll_token"), token == QLatin1String("good") ? m_enrollToken : token},
         {QStringLiteral("name"), name},
         {QStringLiteral("hostname"), QStringLiteral("gpu-box.local")},
         {QStringLiteral("cpus"), 4},
         {QStringLiteral("memory_mb"), 8192},
         {QStringLiteral("gpus"), 1},
         {QStringLiteral("slots"), 1}});
    if (!code.isEmpty()) {
        const QString problem = errorProblem(answer, status, code);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        return;
    }
    VERIFY_STATUS(answer, status);
    QVERIFY(answer.json().value(QLatin1String("worker_id")).toInteger() > 0);
    const QString workerToken = answer.json().value(QLatin1String("worker_token")).toString();
    QVERIFY(!workerToken.isEmpty());
    m_workersToRetire.append(
        Worker{answer.json().value(QLatin1String("worker_id")).toInteger(), workerToken});
    // The token works at once.
    const Answer heartbeat = post(QStringLiteral("/v1/workers/heartbeat"),
                                  workerToken,
                                  {{QStringLiteral("running"), QJsonArray()}});
    VERIFY_STATUS(heartbeat, 200);
    QCOMPARE(heartbeat.json().value(QLatin1String("cancel")).toArray(), QJsonArray());
}

void tst_ServerApi::leaseCarriesTaskAndEnvironment()
{
    const QString user = newUser(QStringLiteral("leaser@example.org"));
    const QString sha256 = uploadBlob(user, someBytes("lease", 700));
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("env-job")), sha256);
    QVERIFY(!uuid.isEmpty());
    const qint64 taskId = taskIdsOf(job(user, uuid), 1).at(0).toInteger();
    const Worker worker = enrollWorker(QStringLiteral("lease-worker"));
    QVERIFY(!worker.token.isEmpty());

    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    const QJsonObject leased = tasks.at(0).toObject();
    QCOMPARE(leased.value(QLatin1String("task_id")).toInteger(), taskId);
    QCOMPARE(leased.value(QLatin1String("job_uuid")).toString(), uuid);
    QCOMPARE(leased.value(QLatin1String("job_name")).toString(), QStringLiteral("env-job"));
    QCOMPARE(leased.value(QLatin1String("kind")).toString(), QStringLiteral("ddl"));
    QCOMPARE(leased.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(leased.value(QLatin1String("role")).toString(), QStringLiteral("worker"));
    QCOMPARE(leased.value(QLatin1String("role_index")).toInt(), 0);
    QCOMPARE(leased.value(QLatin1String("package_sha256")).toString(), sha256);
    QVERIFY(leased.value(QLatin1String("dataset_sha256")).isNull());

    const QJsonObject env = leased.value(QLatin1String("env")).toObject();
    QCOMPARE(env.value(QLatin1String("PAI_JOB_NAME")).toString(), QStringLiteral("env-job"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_NAME")).toString(), QStringLiteral("worker"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("0"));
    QCOMPARE(env.value(QLatin1String("PAI_TASKS_NUM")).toString(), QStringLiteral("1"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLES_NUM")).toString(), QStringLiteral("1"));
    // The worker enrolled over loopback: its tasks are reached at 127.0.0.1 on the task's port.
    const QString port = env.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    QVERIFY(port.toInt() > 0);
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_0_HOST_LIST")).toString(),
             QStringLiteral("127.0.0.1:") + port);

    // Leased means running on that worker; it is not handed out twice.
    const QJsonObject task = taskById(job(user, uuid), taskId);
    QCOMPARE(task.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(task.value(QLatin1String("worker")).toString(), QStringLiteral("lease-worker"));
    QCOMPARE(lease(worker).size(), 0);
    QCOMPARE(lease(enrollWorker(QStringLiteral("lease-worker-2"))).size(), 0);

    // The job runs once the worker says the task started.
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("RUNNING")), 200);
    const QJsonObject running = job(user, uuid);
    QCOMPARE(running.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QVERIFY(running.value(QLatin1String("started_at")).isString());
}

void tst_ServerApi::tasksOfOneJobSeeEachOther()
{
    const QString user = newUser(QStringLiteral("pair@example.org"));
    const QString sha256 = uploadBlob(user, someBytes("pair", 100));
    const Worker first = enrollWorker(QStringLiteral("pair-a"));
    const Worker second = enrollWorker(QStringLiteral("pair-b"));
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("pair-job"), 0, 2), sha256);
    QVERIFY(!uuid.isEmpty());
    // The whole job is placed at once; each worker collects what it got.
    QList<QJsonObject> envs;
    for (const Worker &worker : {first, second}) {
        for (const QJsonValue &task : lease(worker))
            envs << task.toObject().value(QLatin1String("env")).toObject();
    }
    QCOMPARE(envs.size(), 2);
    std::sort(envs.begin(), envs.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString() <
               b.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString();
    });
    const QJsonObject envA = envs.at(0);
    const QJsonObject envB = envs.at(1);
    QCOMPARE(envA.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("0"));
    QCOMPARE(envB.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("1"));
    for (const QJsonObject &env : {envA, envB}) {
        QCOMPARE(env.value(QLatin1String("PAI_TASKS_NUM")).toString(), QStringLiteral("2"));
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_NUM")).toString(), QStringLiteral("2"));
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLES_NUM")).toString(), QStringLiteral("1"));
        QCOMPARE(env.value(QLatin1String("PAI_JOB_NAME")).toString(), QStringLiteral("pair-job"));
    }
    // Both tasks see the whole gang, in role-index order, each at its own address and port.
    const QString hostA = envA.value(QLatin1String("PAI_CURRENT_CONTAINER_IP")).toString() + u':' +
                          envA.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    const QString hostB = envB.value(QLatin1String("PAI_CURRENT_CONTAINER_IP")).toString() + u':' +
                          envB.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    QVERIFY(hostA != hostB);
    for (const QJsonObject &env : {envA, envB}) {
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_0_HOST_LIST")).toString(),
                 hostA + u',' + hostB);
    }
}

void tst_ServerApi::workerReadsPackageByRange()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QByteArray package;
    QVERIFY(startOneTask(QStringLiteral("ranges"), &user, &uuid, &worker, &leased, &package));
    const QString path = QStringLiteral("/v1/workers/blobs/") + sha256Of(package);

    const Answer slice = get(path, worker.token, {}, {{"Range", "bytes=2-5"}});
    VERIFY_STATUS(slice, 206);
    QCOMPARE(slice.body, package.mid(2, 4));
    QCOMPARE(slice.header("Content-Range"), "bytes 2-5/" + QByteArray::number(package.size()));

    const Answer tail = get(path, worker.token, {}, {{"Range", "bytes=2990-"}});
    VERIFY_STATUS(tail, 206);
    QCOMPARE(tail.body, package.mid(2990));
    QCOMPARE(tail.header("Content-Range"),
             "bytes 2990-" + QByteArray::number(package.size() - 1) + '/' +
                 QByteArray::number(package.size()));

    const Answer whole = get(path, worker.token);
    VERIFY_STATUS(whole, 200);
    QCOMPARE(whole.body, package);

    VERIFY_ERROR(
        get(path, worker.token, {}, {{"Range", "bytes=5000-6000"}}), 416, "range_not_satisfiable");
    VERIFY_ERROR(get(path, {}), 401, "unauthorized");

    // Blobs that are no task's of this worker are not there, whether they exist or not.
    const QString othersBlob = uploadBlob(user, someBytes("ranges, not in a job", 100));
    QVERIFY(!othersBlob.isEmpty());
    VERIFY_ERROR(
        get(QStringLiteral("/v1/workers/blobs/") + othersBlob, worker.token), 404, "not_found");
    VERIFY_ERROR(get(QStringLiteral("/v1/workers/blobs/") + sha256Of("nothing"), worker.token),
                 404,
                 "not_found");
    VERIFY_ERROR(
        get(QStringLiteral("/v1/workers/blobs/not-a-digest"), worker.token), 404, "not_found");

    // Once the task ended, its package is no longer the worker's to read.
    VERIFY_STATUS(reportState(worker,
                              leased.value(QLatin1String("task_id")).toInteger(),
                              QStringLiteral("SUCCEEDED"),
                              0),
                  200);
    VERIFY_ERROR(get(path, worker.token), 404, "not_found");
}

void tst_ServerApi::logFollowStreamsUntilTheTaskEnds()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("follow"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const QString logPath = QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId);
    VERIFY_STATUS(send("POST",
                       logPath,
                       worker.token,
                       "line 1\n",
                       QUrlQuery(QStringLiteral("offset=0")),
                       "application/octet-stream"),
                  200);

    // A follower that starts after line 1: it gets lines as the worker appends them, in pieces,
    // and its stream ends once the task has ended and every byte is out.
    ApiClient client(m_base, m_trust);
    client.setBearerToken(user);
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("task"), QString::number(taskId));
    query.addQueryItem(QStringLiteral("offset"), QStringLiteral("7"));
    query.addQueryItem(QStringLiteral("follow"), QStringLiteral("1"));
    std::unique_ptr<ApiRequest> follow(
        client.get(QStringLiteral("/v1/jobs/%1/logs").arg(uuid), query));
    follow->streamBody();
    QByteArray received;
    int pieces = 0;
    connect(follow.get(), &ApiRequest::bodyReceived, this, [&](const QByteArray &bytes) {
        received += bytes;
        ++pieces;
    });
    QTest::qWait(300);
    QVERIFY(!follow->isFinished());
    VERIFY_STATUS(send("POST",
                       logPath,
                       worker.token,
                       "line 2\n",
                       QUrlQuery(QStringLiteral("offset=7")),
                       "application/octet-stream"),
                  200);
    QTRY_COMPARE_WITH_TIMEOUT(received, QByteArray("line 2\n"), 3000);
    VERIFY_STATUS(send("POST",
                       logPath,
                       worker.token,
                       "line 3\n",
                       QUrlQuery(QStringLiteral("offset=14")),
                       "application/octet-stream"),
                  200);
    QTRY_COMPARE_WITH_TIMEOUT(received, QByteArray("line 2\nline 3\n"), 3000);
    QVERIFY(pieces >= 2);
    QVERIFY(!follow->isFinished());
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("SUCCEEDED"), 0), 200);
    QTRY_VERIFY_WITH_TIMEOUT(follow->isFinished(), 3000);
    QVERIFY(follow->result());
    QCOMPARE(follow->result()->header("DDL-Log-Offset"), QByteArray("7"));

    // Another user's follow is refused like any read of the job.
    ApiClient other(m_base, m_trust);
    other.setBearerToken(m_bob);
    std::unique_ptr<ApiRequest> denied(
        other.get(QStringLiteral("/v1/jobs/%1/logs").arg(uuid), query));
    QVERIFY(!denied->waitForFinished());
    QCOMPARE(denied->result().error().code, QStringLiteral("not_found"));
}

// ---- log streams and search -------------------------------------------------------------------

void tst_ServerApi::logStreamsAreKeptApart()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("streams"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const QString logPath = QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId);
    const auto batch = [&](qint64 offset,
                           const QString &streams,
                           qint64 out,
                           qint64 err,
                           const QByteArray &bytes) {
        return sendLogBatch(worker, taskId, {offset, streams, out, err}, bytes);
    };
    // A worker line, a stdout line, a stderr line, then stdout again.
    Answer first =
        batch(0, QStringLiteral("w10,o6,e6,o5"), 0, 0, "[w] start\nout 1\nerr 1\nout2\n");
    VERIFY_STATUS(first, 200);
    QCOMPARE(first.json().value(QLatin1String("offset")).toInteger(), 27);
    QCOMPARE(first.json().value(QLatin1String("stdout_offset")).toInteger(), 11);
    QCOMPARE(first.json().value(QLatin1String("stderr_offset")).toInteger(), 6);
    // An older worker's batch (no streams): the merged log only.
    VERIFY_STATUS(send("POST",
                       logPath,
                       worker.token,
                       "old\n",
                       QUrlQuery(QStringLiteral("offset=27")),
                       "application/octet-stream"),
                  200);

    const QString readPath = QStringLiteral("/v1/jobs/%1/logs").arg(uuid);
    const auto read = [&](const QString &stream, const QString &extra = {}) {
        QUrlQuery query(QStringLiteral("task=%1").arg(taskId) + extra);
        if (!stream.isEmpty())
            query.addQueryItem(QStringLiteral("stream"), stream);
        return get(readPath, user, query);
    };
    QCOMPARE(read({}).body, QByteArray("[w] start\nout 1\nerr 1\nout2\nold\n"));
    QCOMPARE(read(QStringLiteral("all")).body, QByteArray("[w] start\nout 1\nerr 1\nout2\nold\n"));
    const Answer out = read(QStringLiteral("stdout"));
    VERIFY_STATUS(out, 200);
    QCOMPARE(out.body, QByteArray("out 1\nout2\n"));
    QCOMPARE(out.header("DDL-Log-Size"), QByteArray("11"));
    QCOMPARE(out.header("DDL-Log-Stream"), QByteArray("stdout"));
    QCOMPARE(read(QStringLiteral("stderr")).body, QByteArray("err 1\n"));
    // The same windows as the merged log: offset/limit and tail.
    QCOMPARE(read(QStringLiteral("stdout"), QStringLiteral("&offset=6&limit=3")).body,
             QByteArray("out"));
    QCOMPARE(read(QStringLiteral("stdout"), QStringLiteral("&tail=5")).body, QByteArray("out2\n"));
    const Answer bad = read(QStringLiteral("both"));
    VERIFY_ERROR(bad, 400, "bad_request");
    QVERIFY(
        bad.error().value(QLatin1String("message")).toString().contains(QLatin1String("stdout")));

    // Malformed tags are refused and nothing is written.
    VERIFY_ERROR(batch(31, QStringLiteral("o3"), 11, 6, "toolong\n"), 400, "bad_request");
    VERIFY_ERROR(batch(31, QStringLiteral("x8"), 11, 6, "unknown\n"), 400, "bad_request");
    // Lengths whose sum wraps around to the body's size are refused, not sliced past the body.
    VERIFY_ERROR(batch(31,
                       QStringLiteral("o5,o9223372036854775805,o9223372036854775807,o9"),
                       11, 6, "wrapsround"),
                 400, "bad_request");
    QCOMPARE(read(QStringLiteral("stdout")).body, QByteArray("out 1\nout2\n"));

    // Follow one stream: it ends when the task has ended and that stream's bytes are out.
    ApiClient client(m_base, m_trust);
    client.setBearerToken(user);
    QUrlQuery follow(QStringLiteral("task=%1&offset=0&follow=1&stream=stderr").arg(taskId));
    std::unique_ptr<ApiRequest> following(client.get(readPath, follow));
    following->streamBody();
    QByteArray followed;
    connect(following.get(), &ApiRequest::bodyReceived, this, [&](const QByteArray &bytes) {
        followed += bytes;
    });
    QTRY_COMPARE_WITH_TIMEOUT(followed, QByteArray("err 1\n"), 3000);
    VERIFY_STATUS(batch(31, QStringLiteral("e6"), 11, 6, "err 2\n"), 200);
    QTRY_COMPARE_WITH_TIMEOUT(followed, QByteArray("err 1\nerr 2\n"), 3000);
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("SUCCEEDED"), 0), 200);
    QTRY_VERIFY_WITH_TIMEOUT(following->isFinished(), 3000);
    QCOMPARE(following->result()->header("DDL-Log-Stream"), QByteArray("stderr"));
    std::unique_ptr<ApiRequest> badFollow(client.get(
        readPath, QUrlQuery(QStringLiteral("task=%1&follow=1&stream=nope").arg(taskId))));
    QVERIFY(!badFollow->waitForFinished());
    QCOMPARE(badFollow->result().error().code, QStringLiteral("bad_request"));
}

void tst_ServerApi::logStreamsSurviveResendsAndCrashes()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("resends"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const auto batch = [&](qint64 offset,
                           const QString &streams,
                           qint64 out,
                           qint64 err,
                           const QByteArray &bytes) {
        return sendLogBatch(worker, taskId, {offset, streams, out, err}, bytes);
    };
    const auto stored = [&](const QString &suffix) {
        QFile file(
            QDir(m_dataDir).filePath(QStringLiteral("logs/%1%2.log").arg(taskId).arg(suffix)));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const auto cut = [&](const QString &suffix, qint64 size) {
        QFile file(
            QDir(m_dataDir).filePath(QStringLiteral("logs/%1%2.log").arg(taskId).arg(suffix)));
        return file.resize(size);
    };
    VERIFY_STATUS(batch(0, QStringLiteral("o4,e4"), 0, 0, "o 1\ne 1\n"), 200);
    // The answer was lost: the same batch again changes nothing.
    VERIFY_STATUS(batch(0, QStringLiteral("o4,e4"), 0, 0, "o 1\ne 1\n"), 200);
    QCOMPARE(stored({}), QByteArray("o 1\ne 1\n"));
    QCOMPARE(stored(QStringLiteral(".stdout")), QByteArray("o 1\n"));
    QCOMPARE(stored(QStringLiteral(".stderr")), QByteArray("e 1\n"));

    // A crash between the writes of the next batch: the streams hold it, the merged log does
    // not (or only part of it). The worker's resend completes each file without a duplicate.
    VERIFY_STATUS(batch(8, QStringLiteral("e4,o4"), 4, 4, "e 2\no 2\n"), 200);
    QVERIFY(cut({}, 10));
    VERIFY_STATUS(batch(8, QStringLiteral("e4,o4"), 4, 4, "e 2\no 2\n"), 200);
    QCOMPARE(stored({}), QByteArray("o 1\ne 1\ne 2\no 2\n"));
    QCOMPARE(stored(QStringLiteral(".stdout")), QByteArray("o 1\no 2\n"));
    QCOMPARE(stored(QStringLiteral(".stderr")), QByteArray("e 1\ne 2\n"));
    // One stream file behind the others (cut mid-line): completed from its own offset.
    QVERIFY(cut(QStringLiteral(".stdout"), 5));
    VERIFY_STATUS(batch(8, QStringLiteral("e4,o4"), 4, 4, "e 2\no 2\n"), 200);
    QCOMPARE(stored({}), QByteArray("o 1\ne 1\ne 2\no 2\n"));
    QCOMPARE(stored(QStringLiteral(".stdout")), QByteArray("o 1\no 2\n"));
    QCOMPARE(stored(QStringLiteral(".stderr")), QByteArray("e 1\ne 2\n"));

    // A server that holds less of a stream than the batch starts at (restored from a backup):
    // 409 with what each file holds, and nothing written anywhere.
    QVERIFY(cut(QStringLiteral(".stderr"), 4));
    const Answer behind = batch(16, QStringLiteral("e4"), 8, 8, "e 3\n");
    VERIFY_ERROR(behind, 409, "offset_mismatch");
    QCOMPARE(behind.error().value(QLatin1String("offset")).toInteger(), 16);
    QCOMPARE(behind.error().value(QLatin1String("stdout_offset")).toInteger(), 8);
    QCOMPARE(behind.error().value(QLatin1String("stderr_offset")).toInteger(), 4);
    QCOMPARE(stored({}), QByteArray("o 1\ne 1\ne 2\no 2\n"));
    // The worker goes back to a point every file reaches (merged 8: stdout 4, stderr 4).
    VERIFY_STATUS(batch(8, QStringLiteral("e4,o4,e4"), 4, 4, "e 2\no 2\ne 3\n"), 200);
    QCOMPARE(stored({}), QByteArray("o 1\ne 1\ne 2\no 2\ne 3\n"));
    QCOMPARE(stored(QStringLiteral(".stdout")), QByteArray("o 1\no 2\n"));
    QCOMPARE(stored(QStringLiteral(".stderr")), QByteArray("e 1\ne 2\ne 3\n"));
}

void tst_ServerApi::logSearchFindsMatchesEverywhere()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("search"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    // A log of 70 MiB, more than one request scans: lines of 64 bytes, with a needle across the
    // first 1 MiB block boundary, one far beyond the first 64 MiB, and one per 10,000 lines.
    constexpr qint64 Line = 64;
    constexpr qint64 Lines = 70 * 1024 * 1024 / Line;
    const qint64 boundary = 1024 * 1024 - 3; // "NEEDLE" starts 3 bytes before the block ends
    const qint64 far = 68 * 1024 * 1024 + 10;
    {
        QFile log(QDir(m_dataDir).filePath(QStringLiteral("logs/%1.log").arg(taskId)));
        QVERIFY(log.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QByteArray chunk;
        for (qint64 line = 0; line < Lines; ++line) {
            QByteArray text = "line " + QByteArray::number(line).rightJustified(9, '0');
            if (line % 10000 == 5000)
                text += " Marker here";
            chunk += text.leftJustified(Line - 1, '.') + '\n';
            if (chunk.size() >= 4 * 1024 * 1024 || line == Lines - 1) {
                QCOMPARE(log.write(chunk), chunk.size());
                chunk.clear();
            }
        }
        for (const qint64 at : {boundary, far}) {
            QVERIFY(log.seek(at));
            log.write("NEEDLE");
        }
    }
    const QString searchPath = QStringLiteral("/v1/jobs/%1/logs/search").arg(uuid);
    const auto search = [&](const QString &q, const QString &extra = {}) {
        QUrlQuery query(QStringLiteral("task=%1").arg(taskId) + extra);
        query.addQueryItem(QStringLiteral("q"), QString::fromLatin1(QUrl::toPercentEncoding(q)));
        return get(searchPath, user, query);
    };
    const auto offsets = [](const Answer &answer) {
        QList<qint64> list;
        for (const QJsonValue &match : answer.json().value(QLatin1String("matches")).toArray())
            list << match.toObject().value(QLatin1String("offset")).toInteger();
        return list;
    };

    // Forward: the match across the block boundary, then the scan stops at 64 MiB and says
    // where to go on; the next request finds the far one.
    Answer first = search(QStringLiteral("NEEDLE"));
    VERIFY_STATUS(first, 200);
    QCOMPARE(offsets(first), QList<qint64>{boundary});
    const QJsonObject firstMatch =
        first.json().value(QLatin1String("matches")).toArray().at(0).toObject();
    QCOMPARE(firstMatch.value(QLatin1String("line_start")).toInteger(), boundary / Line * Line);
    QCOMPARE(first.json().value(QLatin1String("size")).toInteger(), Lines * Line);
    QCOMPARE(first.json().value(QLatin1String("done")).toBool(), false);
    const qint64 scannedTo = first.json().value(QLatin1String("scanned_to")).toInteger();
    QVERIFY2(scannedTo > 60 * 1024 * 1024 && scannedTo <= 64 * 1024 * 1024,
             qPrintable(QString::number(scannedTo)));
    Answer second = search(QStringLiteral("NEEDLE"), QStringLiteral("&from=%1").arg(scannedTo));
    VERIFY_STATUS(second, 200);
    QCOMPARE(offsets(second), QList<qint64>{far});
    QCOMPARE(second.json().value(QLatin1String("done")).toBool(), true);
    QCOMPARE(second.json().value(QLatin1String("scanned_to")).toInteger(), Lines * Line);

    // Backward from the end: the far one first; on from where that scan stopped, the other.
    Answer back = search(QStringLiteral("NEEDLE"), QStringLiteral("&direction=backward"));
    VERIFY_STATUS(back, 200);
    QCOMPARE(offsets(back), QList<qint64>{far});
    QList<qint64> earlier;
    qint64 before = back.json().value(QLatin1String("scanned_to")).toInteger();
    for (int round = 0; round < 3 && earlier.isEmpty(); ++round) {
        Answer more = search(QStringLiteral("NEEDLE"),
                             QStringLiteral("&direction=backward&from=%1").arg(before));
        VERIFY_STATUS(more, 200);
        earlier = offsets(more);
        before = more.json().value(QLatin1String("scanned_to")).toInteger();
    }
    QCOMPARE(earlier, QList<qint64>{boundary});
    // Backward from a match's own offset leaves that match out.
    QCOMPARE(offsets(search(QStringLiteral("NEEDLE"),
                            QStringLiteral("&direction=backward&from=%1").arg(boundary + 100))),
             QList<qint64>{boundary});
    QVERIFY(offsets(search(QStringLiteral("NEEDLE"),
                           QStringLiteral("&direction=backward&from=%1").arg(boundary)))
                .isEmpty());

    // At most 100 matches per answer, nearest first; scanned_to goes on after the last.
    Answer many = search(QStringLiteral("Marker"));
    VERIFY_STATUS(many, 200);
    const QList<qint64> hundred = offsets(many);
    QCOMPARE(hundred.size(), 100);
    QCOMPARE(hundred.first(), 5000 * Line + 15);
    QCOMPARE(hundred.last(), (99 * 10000 + 5000) * Line + 15);
    QCOMPARE(many.json().value(QLatin1String("scanned_to")).toInteger(), hundred.last() + 1);
    const Answer next =
        search(QStringLiteral("Marker"), QStringLiteral("&from=%1").arg(hundred.last() + 1));
    QCOMPARE(offsets(next).value(0), (100 * 10000 + 5000) * Line + 15);
    // The scan runs beside the server's event loop: a request that comes while it runs (here
    // 64 MiB, case folded, finding nothing) is answered before it.
    ApiClient searching(m_base, m_trust);
    searching.setBearerToken(user);
    ApiClient asking(m_base, m_trust);
    QVERIFY(searching.getSync(QStringLiteral("/v1/version")));
    QVERIFY(asking.getSync(QStringLiteral("/v1/version")));
    std::unique_ptr<ApiRequest> slow(searching.get(
        searchPath,
        QUrlQuery(QStringLiteral("task=%1&q=not-in-the-log&ignore_case=1").arg(taskId))));
    QTest::qWait(10);
    std::unique_ptr<ApiRequest> quick(asking.get(QStringLiteral("/v1/version")));
    QTRY_VERIFY_WITH_TIMEOUT(quick->isFinished(), 5000);
    QVERIFY(!slow->isFinished());
    QTRY_VERIFY_WITH_TIMEOUT(slow->isFinished(), 10000);
    QVERIFY(slow->result());
    QVERIFY(slow->result()->json().value(QLatin1String("scanned_to")).toInteger() >
            60 * 1024 * 1024);

    // A user may have four searches waiting or running at once: of eight sent together, those
    // past the fourth that come while four still scan are refused with 429, and once the scans
    // end the next search is served again.
    std::vector<std::unique_ptr<ApiClient>> clients;
    for (int i = 0; i < 8; ++i) {
        clients.push_back(std::make_unique<ApiClient>(m_base, m_trust));
        clients.back()->setBearerToken(user);
        QVERIFY(clients.back()->getSync(QStringLiteral("/v1/version")));
    }
    std::vector<std::unique_ptr<ApiRequest>> burst;
    for (const auto &client : clients) {
        burst.emplace_back(client->get(
            searchPath,
            QUrlQuery(QStringLiteral("task=%1&q=not-in-the-log&ignore_case=1").arg(taskId))));
    }
    int served = 0;
    int refused = 0;
    for (const auto &request : burst) {
        QTRY_VERIFY_WITH_TIMEOUT(request->isFinished(), 20000);
        if (request->result()) {
            ++served;
        } else {
            QCOMPARE(request->result().error().code, QStringLiteral("rate_limited"));
            QVERIFY(request->result().error().message.contains(QLatin1String("wait")));
            ++refused;
        }
    }
    QVERIFY2(served >= 4 && refused >= 1,
             qPrintable(QStringLiteral("%1 served, %2 refused").arg(served).arg(refused)));
    VERIFY_STATUS(search(QStringLiteral("NEEDLE")), 200);

    // Clients that go away before their answer: the server drops the answers and goes on.
    for (int i = 0; i < 3; ++i) {
        ApiClient quitter(m_base, m_trust);
        quitter.setBearerToken(user);
        ApiRequest *request = quitter.get(
            searchPath,
            QUrlQuery(QStringLiteral("task=%1&q=NEEDLE&direction=backward").arg(taskId)));
        QTest::qWait(10 * i);
        request->abort();
    }
    QTest::qWait(500);
    QCOMPARE(offsets(search(QStringLiteral("NEEDLE"))), QList<qint64>{boundary});
    // Case: exact by default; ignore_case=1 folds ASCII letters.
    QVERIFY(offsets(search(QStringLiteral("marker HERE"))).isEmpty());
    QCOMPARE(
        offsets(search(QStringLiteral("marker HERE"), QStringLiteral("&ignore_case=1"))).value(0),
        5000 * Line + 15);
}

void tst_ServerApi::logSearchIsBoundedAndScoped()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("searchscope"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    QUrlQuery tagged;
    tagged.addQueryItem(QStringLiteral("offset"), QStringLiteral("0"));
    tagged.addQueryItem(QStringLiteral("streams"), QStringLiteral("o12,e20"));
    tagged.addQueryItem(QStringLiteral("stdout_offset"), QStringLiteral("0"));
    tagged.addQueryItem(QStringLiteral("stderr_offset"), QStringLiteral("0"));
    VERIFY_STATUS(send("POST",
                       QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                       worker.token,
                       "loss & 50%\n\nwarning: loss & 50%\n",
                       tagged,
                       "application/octet-stream"),
                  200);
    const QString searchPath = QStringLiteral("/v1/jobs/%1/logs/search").arg(uuid);
    const auto search = [&](const QString &token, const QString &q, const QString &extra = {}) {
        QUrlQuery query(QStringLiteral("task=%1").arg(taskId) + extra);
        query.addQueryItem(QStringLiteral("q"), QString::fromLatin1(QUrl::toPercentEncoding(q)));
        return get(searchPath, token, query);
    };
    // Any text, '&' and '%' included; per stream, with offsets in that stream's log.
    Answer all = search(user, QStringLiteral("loss & 50%"));
    VERIFY_STATUS(all, 200);
    QCOMPARE(all.json().value(QLatin1String("matches")).toArray().size(), 2);
    Answer err = search(user, QStringLiteral("loss & 50%"), QStringLiteral("&stream=stderr"));
    VERIFY_STATUS(err, 200);
    const QJsonArray errMatches = err.json().value(QLatin1String("matches")).toArray();
    QCOMPARE(errMatches.size(), 1);
    QCOMPARE(errMatches.at(0).toObject().value(QLatin1String("offset")).toInteger(), 9);
    QCOMPARE(errMatches.at(0).toObject().value(QLatin1String("line_start")).toInteger(), 0);
    QCOMPARE(err.json().value(QLatin1String("size")).toInteger(), 20);

    VERIFY_ERROR(search(user, QString(257, QLatin1Char('x'))), 400, "bad_request");
    VERIFY_ERROR(search(user, QString()), 400, "bad_request");
    VERIFY_ERROR(search(user, QStringLiteral("loss"), QStringLiteral("&direction=sideways")),
                 400,
                 "bad_request");
    VERIFY_ERROR(
        search(user, QStringLiteral("loss"), QStringLiteral("&stream=stdin")), 400, "bad_request");
    // 256 bytes of UTF-8 are the most: 128 two-byte characters pass, 129 do not.
    VERIFY_STATUS(search(user, QString(128, QChar(0x00e9))), 200);
    VERIFY_ERROR(search(user, QString(129, QChar(0x00e9))), 400, "bad_request");
    // Another user's job, or a task of another job, is not found.
    VERIFY_ERROR(search(m_bob, QStringLiteral("loss")), 404, "not_found");
    VERIFY_ERROR(search(QString(), QStringLiteral("loss")), 401, "unauthorized");

    // In a line longer than the look-back (3 MiB without a newline) a match's line_start is at
    // most 1 MiB before it, so a client loading from there sees the match.
    {
        QFile log(QDir(m_dataDir).filePath(QStringLiteral("logs/%1.log").arg(taskId)));
        QVERIFY(log.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(log.write(QByteArray(3 * 1024 * 1024, 'x') + "NEEDLE\n") > 0);
    }
    const Answer longLine = search(user, QStringLiteral("NEEDLE"));
    VERIFY_STATUS(longLine, 200);
    const QJsonObject match =
        longLine.json().value(QLatin1String("matches")).toArray().at(0).toObject();
    QCOMPARE(match.value(QLatin1String("offset")).toInteger(), 3 * 1024 * 1024);
    QVERIFY(match.value(QLatin1String("line_start")).toInteger() >= 2 * 1024 * 1024);
}

void tst_ServerApi::logsAreWrittenAndReadByOffset()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("logs"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const QString logPath = QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId);
    const auto at = [](qint64 offset) {
        return QUrlQuery(QStringLiteral("offset=%1").arg(offset));
    };

    Answer first = send(
        "POST", logPath, worker.token, "epoch 1 loss 0.9\n", at(0), "application/octet-stream");
    VERIFY_STATUS(first, 200);
    QCOMPARE(first.json().value(QLatin1String("offset")).toInteger(), 17);

    // A batch that would leave a gap is refused and tells where to resume.
    Answer gap = send("POST", logPath, worker.token, "lost\n", at(40), "application/octet-stream");
    VERIFY_ERROR(gap, 409, "offset_mismatch");
    QCOMPARE(gap.error().value(QLatin1String("offset")).toInteger(), 17);

    Answer second = send(
        "POST", logPath, worker.token, "epoch 2 loss 0.5\n", at(17), "application/octet-stream");
    VERIFY_STATUS(second, 200);
    QCOMPARE(second.json().value(QLatin1String("offset")).toInteger(), 34);
    // A resend of a batch already stored (its answer was lost) is not written twice.
    Answer resend = send(
        "POST", logPath, worker.token, "epoch 2 loss 0.5\n", at(17), "application/octet-stream");
    VERIFY_STATUS(resend, 200);
    QCOMPARE(resend.json().value(QLatin1String("offset")).toInteger(), 34);

    const QString readPath = QStringLiteral("/v1/jobs/%1/logs").arg(uuid);
    const auto read = [&](qint64 offset, qint64 limit) {
        QUrlQuery query(QStringLiteral("task=%1&offset=%2").arg(taskId).arg(offset));
        if (limit > 0)
            query.addQueryItem(QStringLiteral("limit"), QString::number(limit));
        return get(readPath, user, query);
    };
    Answer all = read(0, 0);
    VERIFY_STATUS(all, 200);
    QCOMPARE(all.body, QByteArray("epoch 1 loss 0.9\nepoch 2 loss 0.5\n"));
    QCOMPARE(all.header("DDL-Log-Offset"), QByteArray("0"));
    QCOMPARE(all.header("DDL-Next-Offset"), QByteArray("34"));
    QVERIFY(!all.hasHeader("DDL-Log-Complete")); // the task still runs

    Answer fromSecond = read(17, 0);
    VERIFY_STATUS(fromSecond, 200);
    QCOMPARE(fromSecond.body, QByteArray("epoch 2 loss 0.5\n"));
    QCOMPARE(fromSecond.header("DDL-Log-Offset"), QByteArray("17"));
    QCOMPARE(fromSecond.header("DDL-Next-Offset"), QByteArray("34"));

    Answer limited = read(0, 5);
    VERIFY_STATUS(limited, 200);
    QCOMPARE(limited.body, QByteArray("epoch"));
    QCOMPARE(limited.header("DDL-Next-Offset"), QByteArray("5"));

    Answer atEnd = read(34, 0);
    VERIFY_STATUS(atEnd, 200);
    QVERIFY(atEnd.body.isEmpty());
    QCOMPARE(atEnd.header("DDL-Next-Offset"), QByteArray("34"));

    // A task of another job is not this job's.
    const QString otherUuid = submitJob(user,
                                        wireSpec(QStringLiteral("logs-other")),
                                        leased.value(QLatin1String("package_sha256")).toString());
    const qint64 otherTask = taskIdsOf(job(user, otherUuid), 1).at(0).toInteger();
    VERIFY_ERROR(get(QStringLiteral("/v1/jobs/%1/logs").arg(otherUuid),
                     user,
                     QUrlQuery(QStringLiteral("task=%1").arg(taskId))),
                 404,
                 "not_found");
    VERIFY_ERROR(
        get(readPath, user, QUrlQuery(QStringLiteral("task=%1").arg(otherTask))), 404, "not_found");

    // When the task has ended and the reader reached the end, the log says it is complete.
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("SUCCEEDED"), 0), 200);
    Answer complete = read(0, 0);
    VERIFY_STATUS(complete, 200);
    QCOMPARE(complete.header("DDL-Log-Complete"), QByteArray("1"));
    QVERIFY(!read(0, 5).hasHeader("DDL-Log-Complete"));
    // And the worker may not write to it any more.
    VERIFY_ERROR(send("POST", logPath, worker.token, "late\n", at(34), "application/octet-stream"),
                 409,
                 "conflict");
}

void tst_ServerApi::taskSucceedsWithArtifacts()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("artifacts"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();

    // More than one chunk and one range (8 MiB each) in both directions.
    const QByteArray model = someBytes("model weights", 9 * 1024 * 1024 + 123);
    const QString modelSha = uploadBlob(worker.token, model);
    QCOMPARE(modelSha, sha256Of(model));
    const QByteArray metrics = "accuracy: 0.98\n";
    const QString metricsSha = uploadBlob(worker.token, metrics);
    QVERIFY(!metricsSha.isEmpty());

    const QString artifactsPath = QStringLiteral("/v1/workers/tasks/%1/artifacts").arg(taskId);
    const auto file = [](const QString &path, qint64 size, const QString &sha256) {
        return QJsonObject{{QStringLiteral("path"), path},
                           {QStringLiteral("size"), size},
                           {QStringLiteral("sha256"), sha256}};
    };
    // Paths that leave the output dir, and blobs the worker never uploaded, are refused.
    for (const QString &bad : {QStringLiteral("../escape.bin"),
                               QStringLiteral("/etc/passwd"),
                               QStringLiteral("out/../../x"),
                               QString()}) {
        const Answer refused =
            post(artifactsPath,
                 worker.token,
                 {{QStringLiteral("files"), QJsonArray{file(bad, metrics.size(), metricsSha)}}});
        const QString problem = errorProblem(refused, 400, QStringLiteral("bad_request"));
        QVERIFY2(problem.isEmpty(), qPrintable(bad + QStringLiteral(": ") + problem));
    }
    const QString usersBlob = leased.value(QLatin1String("package_sha256")).toString();
    VERIFY_ERROR(post(artifactsPath,
                      worker.token,
                      {{QStringLiteral("files"),
                        QJsonArray{file(QStringLiteral("package.tar"), 3000, usersBlob)}}}),
                 400,
                 "bad_request");

    const Answer recorded =
        post(artifactsPath,
             worker.token,
             {{QStringLiteral("files"),
               QJsonArray{file(QStringLiteral("out/model.bin"), model.size(), modelSha),
                          file(QStringLiteral("metrics.txt"), metrics.size(), metricsSha)}}});
    VERIFY_STATUS(recorded, 200);

    const Answer succeeded = reportState(worker, taskId, QStringLiteral("SUCCEEDED"), 0);
    VERIFY_STATUS(succeeded, 200);
    const QJsonObject done = job(user, uuid);
    QCOMPARE(done.value(QLatin1String("state")).toString(), QStringLiteral("SUCCEEDED"));
    QVERIFY(done.value(QLatin1String("finished_at")).isString());
    const QJsonObject task = taskById(done, taskId);
    QCOMPARE(task.value(QLatin1String("state")).toString(), QStringLiteral("SUCCEEDED"));
    QCOMPARE(task.value(QLatin1String("exit_code")).toInt(-1), 0);
    // A finished task is no longer the worker's: resends of its state are stale.
    VERIFY_ERROR(reportState(worker, taskId, QStringLiteral("FAILED"), 1), 409, "conflict");
    QCOMPARE(job(user, uuid).value(QLatin1String("state")).toString(), QStringLiteral("SUCCEEDED"));

    const Answer listed = get(QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), user);
    VERIFY_STATUS(listed, 200);
    const QJsonArray files = listed.json().value(QLatin1String("files")).toArray();
    QCOMPARE(files.size(), 2);
    QJsonObject modelEntry;
    for (const QJsonValue &entry : files) {
        if (entry.toObject().value(QLatin1String("path")).toString() ==
            QLatin1String("out/model.bin"))
            modelEntry = entry.toObject();
    }
    QCOMPARE(modelEntry.value(QLatin1String("size")).toInteger(), qint64(model.size()));
    QCOMPARE(modelEntry.value(QLatin1String("sha256")).toString(), modelSha);

    ApiClient client(m_base, m_trust);
    client.setBearerToken(user);
    const QString destination = m_dir.filePath(QStringLiteral("download/model.bin"));
    RangeDownload download(&client,
                           QStringLiteral("/v1/jobs/%1/artifacts/file").arg(uuid),
                           QUrlQuery({{QStringLiteral("path"), QStringLiteral("out/model.bin")}}),
                           destination,
                           modelSha);
    download.start();
    const Result<QString> &downloaded = download.waitForFinished();
    QVERIFY2(downloaded, downloaded ? "" : qPrintable(downloaded.error().message));
    Result<QString> digest = sha256OfFile(destination);
    QVERIFY(digest);
    QCOMPARE(*digest, modelSha);

    // One range of the small file, as a client resuming would ask.
    const Answer range = get(QStringLiteral("/v1/jobs/%1/artifacts/file").arg(uuid),
                             user,
                             QUrlQuery({{QStringLiteral("path"), QStringLiteral("metrics.txt")}}),
                             {{"Range", "bytes=10-"}});
    VERIFY_STATUS(range, 206);
    QCOMPARE(range.body, metrics.mid(10));
    VERIFY_ERROR(get(QStringLiteral("/v1/jobs/%1/artifacts/file").arg(uuid),
                     user,
                     QUrlQuery({{QStringLiteral("path"), QStringLiteral("nope.txt")}})),
                 404,
                 "not_found");
}

void tst_ServerApi::artifactSizeMustMatchItsBlob()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("sizes"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const QByteArray bytes = "twelve bytes";
    const QString sha256 = uploadBlob(worker.token, bytes);
    QVERIFY(!sha256.isEmpty());

    // The listing shows users the recorded size and downloads are cut by it: a size that is
    // not the blob's must not be recorded.
    const Answer answer =
        post(QStringLiteral("/v1/workers/tasks/%1/artifacts").arg(taskId),
             worker.token,
             {{QStringLiteral("files"),
               QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("out.txt")},
                                      {QStringLiteral("size"), 5000},
                                      {QStringLiteral("sha256"), sha256}}}}});
    QCOMPARE(answer.status, 400);
    const QJsonArray files = get(QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), user)
                                 .json()
                                 .value(QLatin1String("files"))
                                 .toArray();
    for (const QJsonValue &file : files) {
        QCOMPARE(file.toObject().value(QLatin1String("size")).toInteger(), qint64(bytes.size()));
    }
}

void tst_ServerApi::taskEndsWithoutAMessage_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("succeeded") << QStringLiteral("SUCCEEDED") << 0;
    QTest::newRow("failed") << QStringLiteral("FAILED") << 2;
}

void tst_ServerApi::taskEndsWithoutAMessage()
{
    QFETCH(QString, state);
    QFETCH(int, exitCode);

    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(
        startOneTask(QStringLiteral("quiet-") + state.toLower(), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();

    // ddl-worker's TaskRunner::reportState leaves "message" out when it has none to tell.
    const Answer answer = reportState(worker, taskId, state, exitCode, QString());
    VERIFY_STATUS(answer, 200);
    const QJsonObject ended = job(user, uuid);
    QCOMPARE(ended.value(QLatin1String("state")).toString(), state);
    QCOMPARE(taskById(ended, taskId).value(QLatin1String("exit_code")).toInt(-1), exitCode);
}

void tst_ServerApi::failedTaskIsRetriedThenFailsTheJob()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("retry"), &user, &uuid, &worker, &leased, nullptr, 1));
    const qint64 firstTask = leased.value(QLatin1String("task_id")).toInteger();

    VERIFY_STATUS(reportState(worker, firstTask, QStringLiteral("FAILED"), 3), 200);
    QJsonObject retried = job(user, uuid);
    QCOMPARE(retried.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(retried.value(QLatin1String("attempt")).toInt(), 2);
    QCOMPARE(taskById(retried, firstTask).value(QLatin1String("state")).toString(),
             QStringLiteral("FAILED"));
    QCOMPARE(taskById(retried, firstTask).value(QLatin1String("exit_code")).toInt(), 3);
    const QJsonArray secondAttempt = taskIdsOf(retried, 2);
    QCOMPARE(secondAttempt.size(), 1);
    const qint64 secondTask = secondAttempt.at(0).toInteger();
    QVERIFY(secondTask != firstTask);
    // Waiting for a worker, or already placed on one (the scheduler runs at once).
    const QString secondState =
        taskById(retried, secondTask).value(QLatin1String("state")).toString();
    QVERIFY2(secondState == QLatin1String("WAITING") || secondState == QLatin1String("RUNNING"),
             qPrintable(secondState));

    // The new attempt is leased like any waiting task.
    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    QCOMPARE(tasks.at(0).toObject().value(QLatin1String("task_id")).toInteger(), secondTask);
    QCOMPARE(tasks.at(0).toObject().value(QLatin1String("attempt")).toInt(), 2);
    VERIFY_STATUS(reportState(worker, secondTask, QStringLiteral("RUNNING")), 200);
    VERIFY_STATUS(reportState(worker, secondTask, QStringLiteral("FAILED"), 4), 200);

    const QJsonObject failed = job(user, uuid);
    QCOMPARE(failed.value(QLatin1String("state")).toString(), QStringLiteral("FAILED"));
    QVERIFY(failed.value(QLatin1String("finished_at")).isString());
    const QString reason = failed.value(QLatin1String("reason")).toString();
    QVERIFY2(reason.contains(QStringLiteral("worker[0]")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("exit code 4")), qPrintable(reason));
    QCOMPARE(taskIdsOf(failed, 3).size(), 0); // no third attempt
    QCOMPARE(lease(worker).size(), 0);
}

void tst_ServerApi::heartbeatCancelsTasksOfCancelledJob()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QVERIFY(startOneTask(QStringLiteral("heartbeat"), &user, &uuid, &worker, &leased));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const auto heartbeat = [&](const QJsonArray &running) {
        return post(QStringLiteral("/v1/workers/heartbeat"),
                    worker.token,
                    {{QStringLiteral("running"), running}, {QStringLiteral("slots"), 2}});
    };

    Answer before = heartbeat({taskId});
    VERIFY_STATUS(before, 200);
    QCOMPARE(before.json().value(QLatin1String("cancel")).toArray(), QJsonArray());

    const Answer cancelled = post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), user, {});
    VERIFY_STATUS(cancelled, 200);
    QCOMPARE(cancelled.json().value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));

    Answer after = heartbeat({taskId});
    VERIFY_STATUS(after, 200);
    QCOMPARE(after.json().value(QLatin1String("cancel")).toArray(), QJsonArray{taskId});

    // A task the worker runs but does not hold (a stale lease) must stop as well.
    Answer stale = heartbeat({taskId, 987654321});
    VERIFY_STATUS(stale, 200);
    QSet<qint64> toCancel;
    for (const QJsonValue &id : stale.json().value(QLatin1String("cancel")).toArray())
        toCancel.insert(id.toInteger());
    QCOMPARE(toCancel, (QSet<qint64>{taskId, 987654321}));

    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("STOPPED")), 200);
    const QJsonObject stopped = job(user, uuid);
    QCOMPARE(stopped.value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));
    QCOMPARE(taskById(stopped, taskId).value(QLatin1String("state")).toString(),
             QStringLiteral("STOPPED"));
    Answer quiet = heartbeat({});
    VERIFY_STATUS(quiet, 200);
    QCOMPARE(quiet.json().value(QLatin1String("cancel")).toArray(), QJsonArray());
}

void tst_ServerApi::otherWorkerCannotTouchTheTask()
{
    QString user, uuid;
    Worker worker;
    QJsonObject leased;
    QByteArray package;
    QVERIFY(startOneTask(QStringLiteral("intruder"), &user, &uuid, &worker, &leased, &package));
    const qint64 taskId = leased.value(QLatin1String("task_id")).toInteger();
    const Worker intruder = enrollWorker(QStringLiteral("intruder-2"));
    QVERIFY(!intruder.token.isEmpty());
    const QString artifact = uploadBlob(intruder.token, "forged");
    QVERIFY(!artifact.isEmpty());

    VERIFY_ERROR(send("POST",
                      QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                      intruder.token,
                      "forged line\n",
                      QUrlQuery(QStringLiteral("offset=0")),
                      "application/octet-stream"),
                 409,
                 "conflict");
    VERIFY_ERROR(reportState(intruder, taskId, QStringLiteral("SUCCEEDED"), 0), 409, "conflict");
    VERIFY_ERROR(post(QStringLiteral("/v1/workers/tasks/%1/artifacts").arg(taskId),
                      intruder.token,
                      {{QStringLiteral("files"),
                        QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("x.txt")},
                                               {QStringLiteral("size"), 6},
                                               {QStringLiteral("sha256"), artifact}}}}}),
                 409,
                 "conflict");
    VERIFY_ERROR(get(QStringLiteral("/v1/workers/blobs/") + sha256Of(package), intruder.token),
                 404,
                 "not_found");

    // Nothing of it reached the job.
    const QJsonObject running = job(user, uuid);
    QCOMPARE(running.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(taskById(running, taskId).value(QLatin1String("state")).toString(),
             QStringLiteral("RUNNING"));
    const Answer log = get(QStringLiteral("/v1/jobs/%1/logs").arg(uuid),
                           user,
                           QUrlQuery(QStringLiteral("task=%1").arg(taskId)));
    VERIFY_STATUS(log, 200);
    QVERIFY(log.body.isEmpty());
    QCOMPARE(get(QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), user)
                 .json()
                 .value(QLatin1String("files"))
                 .toArray()
                 .size(),
             0);
    // The task's own worker still can.
    VERIFY_STATUS(send("POST",
                       QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                       worker.token,
                       "real line\n",
                       QUrlQuery(QStringLiteral("offset=0")),
                       "application/octet-stream"),
                  200);
}

QTEST_GUILESS_MAIN(tst_ServerApi)
#include "tst_server_api.moc"
