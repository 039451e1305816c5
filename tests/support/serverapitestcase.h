#pragma once

#include "api/apiclient.h"
#include "app/serverapp.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPair>
#include <QTemporaryDir>

#include <functional>
#include <QTest>
#include <QUrl>
#include <QUrlQuery>
#include <memory>
#include <optional>

// The in-process server of the API tests: a real ServerApp started in this process with a real
// SQLite store in a temporary data dir, real TLS on 127.0.0.1 with the server's own self-signed
// certificate trusted through ServerTrust::fromCaFile, and real clients (QNetworkAccessManager for
// exact statuses and bodies, the shared ApiClient and BlobUpload for transfers).

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

extern const QString Password;

QString sha256Of(const QByteArray &bytes);
// Bytes that differ for every seed, so that each test's blobs are its own.
QByteArray someBytes(const QByteArray &seed, int size);
// A valid wire spec of a DDL job: one role "worker" of taskNumber tasks.
QJsonObject wireSpec(const QString &name, int retryCount = 0, int taskNumber = 1);
QJsonObject submission(const QJsonObject &spec, const QString &packageSha256);
// Why an answer is not the one error docs/api.md promises, or empty when it is: the status, and
// exactly {"error": {"code", "message", "field"?, ...}} with a non-empty message.
QString errorProblem(const Answer &answer, int status, const QString &code);
QJsonArray taskIdsOf(const QJsonObject &job, int attempt);
QJsonObject taskById(const QJsonObject &job, qint64 taskId);

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

// The base of the tst_api_* tests: its slots start the server with two users (Alice, Bob) and a
// worker that only signs requests, and clean up after each test. Every test makes its own users,
// jobs and workers. Leases hand out any waiting task, so cleanup() cancels whatever jobs a test
// left unfinished, and the worker tests check that they got exactly the task of their own job.
class ServerApiTestCase : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void cleanupTestCase();

protected:
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
    QString submitJob(const QString &token, const QJsonObject &spec, const QString &packageSha256,
                      int priority = 0);
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
    struct RunningTask
    {
        QString user; // the user's access token
        QString uuid; // the job's
        Worker worker;
        QJsonObject lease;
        QByteArray package; // the bytes of the job's package
        qint64 taskId = 0;
    };
    std::optional<RunningTask> startOneTask(const QString &tag, int retryCount = 0);
    // Stops the server and starts it again on the same data and database with its config
    // changed by change, as an operator who edits server.yaml and restarts; workers and users
    // keep their tokens. Empty when it started, else why not.
    QString restartServer(const std::function<void(ddl::server::ServerConfig &)> &change);

    QTemporaryDir m_dir;
    QString m_dataDir;
    QString m_database; // empty: SQLite
    ddl::server::ServerConfig m_config; // the one m_server runs with
    std::unique_ptr<ddl::server::ServerApp> m_server;
    QUrl m_base;
    ddl::ServerTrust m_trust;
    QNetworkAccessManager m_network;
    QString m_enrollToken;
    QString m_alice;
    QString m_bob;
    Worker m_someWorker;
    int m_users = 0;
    QList<QPair<QString, QString>> m_jobsToCancel; // (token, uuid)
    QList<Worker> m_workersToRetire;
};
