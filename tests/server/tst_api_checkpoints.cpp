// Checkpoints (docs/checkpoints.md): what a worker may record as its task's checkpoint, what the
// job's user sees of it, and that the task's next attempt, and only a worker running the job, gets
// it. Against the in-process server of ServerApiTestCase (tests/support), over real TLS on
// loopback; its checkpoint_max_bytes is 1 MiB.
#include "serverapitestcase.h"

#include "packaging/datasetmanifest.h"
#include "store/database.h"
#include "store/sql.h"
#include "workers/trustservice.h"

#include <QScopeGuard>

using namespace ddl;
using namespace ddl::server;

namespace {

// The canonical bytes of a dataset manifest of these files (path -> content); declaredSize, when
// given, is the size it claims for every file instead of the real one.
QByteArray manifestOf(const QMap<QString, QByteArray> &files, qint64 declaredSize = -1)
{
    QJsonArray entries;
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        entries.append(QJsonObject{{QStringLiteral("path"), it.key()},
                                   {QStringLiteral("size"),
                                    declaredSize >= 0 ? declaredSize : qint64(it.value().size())},
                                   {QStringLiteral("sha256"), sha256Of(it.value())}});
    }
    const QByteArray json =
        QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("ddl-dataset")},
                                  {QStringLiteral("version"), 1},
                                  {QStringLiteral("files"), entries}})
            .toJson(QJsonDocument::Compact);
    const Result<DatasetManifest> manifest = DatasetManifest::parse(json);
    return manifest ? manifest->toJson() : QByteArray();
}

QJsonObject checkpointBody(const QString &manifestSha256)
{
    return {{QStringLiteral("manifest_sha256"), manifestSha256}};
}

} // namespace

class tst_ApiCheckpoints : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void onlyACompleteUploadOfTheWorkerIsRecorded();
    void nextAttemptGetsTheCheckpoint();
    void checkpointOverTheLimitIsRefused();
    void declaredSizesAreNotTrusted();
    void zeroLimitMeansNoLimit();
    void quarantinedWorkerRecordsNone();
    void manifestOfTooManyFilesIsRefusedUnread();

private:
    // Whether the server remembered the manifest file by file (what lets a worker fetch them).
    bool registered(const QString &manifestSha256);
};

bool tst_ApiCheckpoints::registered(const QString &manifestSha256)
{
    Result<QSqlDatabase> db = Database::open(m_dataDir, QStringLiteral("tst-ckpt"), m_database);
    if (!db) {
        qWarning("%s", qPrintable(db.error().message));
        return true;
    }
    Result<QSqlQuery> row = runSql(*db,
                                   QStringLiteral("SELECT 1 FROM manifest_files WHERE "
                                                  "manifest_sha256 = ?"),
                                   {manifestSha256});
    return !row || row->next();
}

void tst_ApiCheckpoints::onlyACompleteUploadOfTheWorkerIsRecorded()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ckpt-complete"));
    QVERIFY(started);
    const QString path = QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId);
    const Worker &worker = started->worker;

    // A half upload: the manifest is stored, one of its files is not.
    const QByteArray sent = someBytes("ckpt sent", 4000);
    QVERIFY(!uploadBlob(worker.token, sent).isEmpty());
    const QByteArray half = manifestOf(
        {{QStringLiteral("a.bin"), sent}, {QStringLiteral("b.bin"), someBytes("ckpt unsent", 10)}});
    const QString halfSha = uploadBlob(worker.token, half);
    QVERIFY(!halfSha.isEmpty());
    const Answer refused = post(path, worker.token, checkpointBody(halfSha));
    VERIFY_ERROR(refused, 400, "bad_request");
    QCOMPARE(refused.error().value(QLatin1String("missing")).toArray().size(), qsizetype(1));

    // A manifest the worker did not upload (its user did) is not the worker's to record.
    const QByteArray usersManifest = manifestOf({{QStringLiteral("p.tar"), started->package}});
    const QString usersSha = uploadBlob(started->user, usersManifest);
    QVERIFY(!usersSha.isEmpty());
    VERIFY_ERROR(post(path, worker.token, checkpointBody(usersSha)), 400, "bad_request");
    VERIFY_ERROR(
        post(path, worker.token, checkpointBody(QStringLiteral("../x"))), 400, "bad_request");
    QVERIFY(
        job(started->user, started->uuid).value(QLatin1String("checkpoints")).toArray().isEmpty());

    // Another worker cannot record a checkpoint of a task that is not its own.
    const QByteArray whole = manifestOf({{QStringLiteral("a.bin"), sent}});
    const QString wholeSha = uploadBlob(worker.token, whole);
    QVERIFY(!wholeSha.isEmpty());
    const Worker other = enrollWorker(QStringLiteral("ckpt-complete-other"));
    VERIFY_ERROR(post(path, other.token, checkpointBody(wholeSha)), 409, "conflict");

    // The complete one is recorded, and its user sees it.
    const Answer recorded = post(path, worker.token, checkpointBody(wholeSha));
    VERIFY_STATUS(recorded, 200);
    QCOMPARE(recorded.json().value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(recorded.json().value(QLatin1String("files")).toInt(), 1);
    QCOMPARE(recorded.json().value(QLatin1String("size")).toInteger(), qint64(sent.size()));
    const QJsonArray checkpoints =
        job(started->user, started->uuid).value(QLatin1String("checkpoints")).toArray();
    QCOMPARE(checkpoints.size(), qsizetype(1));
    const QJsonObject checkpoint = checkpoints.first().toObject();
    QCOMPARE(checkpoint.value(QLatin1String("role")).toString(), QStringLiteral("worker"));
    QCOMPARE(checkpoint.value(QLatin1String("role_index")).toInt(), 0);
    QCOMPARE(checkpoint.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(checkpoint.value(QLatin1String("manifest_sha256")).toString(), wholeSha);
    QVERIFY(checkpoint.value(QLatin1String("created_at")).isString());
    // Another user does not see the job at all.
    QCOMPARE(get(QStringLiteral("/v1/jobs/") + started->uuid, m_bob).status, 404);
}

void tst_ApiCheckpoints::nextAttemptGetsTheCheckpoint()
{
    const std::optional<RunningTask> started =
        startOneTask(QStringLiteral("ckpt-next"), /*retryCount=*/1);
    QVERIFY(started);
    const Worker &worker = started->worker;
    const QByteArray state = someBytes("ckpt next state", 3000);
    QVERIFY(!uploadBlob(worker.token, state).isEmpty());
    const QString manifestSha =
        uploadBlob(worker.token, manifestOf({{QStringLiteral("state.npz"), state}}));
    QVERIFY(!manifestSha.isEmpty());
    VERIFY_STATUS(post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
                       worker.token,
                       checkpointBody(manifestSha)),
                  200);

    // A worker that runs none of the job's tasks cannot read the checkpoint.
    const Worker stranger = enrollWorker(QStringLiteral("ckpt-next-stranger"));
    QVERIFY(get(QStringLiteral("/v1/workers/blobs/") + sha256Of(state), stranger.token).status !=
            200);

    // The task fails; the job's retry is leased with the checkpoint, to whichever worker.
    VERIFY_STATUS(reportState(worker, started->taskId, QStringLiteral("FAILED"), 1), 200);
    QJsonObject retry;
    Worker holder;
    for (int round = 0; round < 20 && retry.isEmpty(); ++round) {
        for (const Worker &candidate : {worker, stranger, m_someWorker}) {
            for (const QJsonValue &value : lease(candidate)) {
                if (value.toObject().value(QLatin1String("job_uuid")).toString() == started->uuid) {
                    retry = value.toObject();
                    holder = candidate;
                }
            }
        }
        if (retry.isEmpty())
            QTest::qWait(100);
    }
    QVERIFY2(!retry.isEmpty(), "the retry was never leased");
    QCOMPARE(retry.value(QLatin1String("attempt")).toInt(), 2);
    QCOMPARE(retry.value(QLatin1String("checkpoint_manifest")).toString(), manifestSha);
    QCOMPARE(retry.value(QLatin1String("checkpoint_attempt")).toInt(), 1);
    QCOMPARE(retry.value(QLatin1String("checkpoint_max_bytes")).toInteger(), qint64(1024 * 1024));
    const qint64 retryTask = retry.value(QLatin1String("task_id")).toInteger();
    VERIFY_STATUS(reportState(holder, retryTask, QStringLiteral("RUNNING")), 200);
    // Its worker may fetch the checkpoint's manifest and files.
    const Answer file = get(QStringLiteral("/v1/workers/blobs/") + sha256Of(state), holder.token);
    VERIFY_STATUS(file, 200);
    QCOMPARE(file.body, state);
    VERIFY_STATUS(get(QStringLiteral("/v1/workers/blobs/") + manifestSha, holder.token), 200);
    // The first attempt's task is over: its worker records no more checkpoints for it.
    VERIFY_ERROR(post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
                      worker.token,
                      checkpointBody(manifestSha)),
                 409,
                 "conflict");
}

void tst_ApiCheckpoints::checkpointOverTheLimitIsRefused()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ckpt-limit"));
    QVERIFY(started);
    QCOMPARE(started->lease.value(QLatin1String("checkpoint_max_bytes")).toInteger(),
             qint64(1024 * 1024));
    QVERIFY(started->lease.value(QLatin1String("checkpoint_manifest")).isNull());
    const QByteArray big = someBytes("ckpt big", 1024 * 1024 + 1);
    QVERIFY(!uploadBlob(started->worker.token, big).isEmpty());
    const QString manifestSha =
        uploadBlob(started->worker.token, manifestOf({{QStringLiteral("big.bin"), big}}));
    QVERIFY(!manifestSha.isEmpty());
    const Answer refused =
        post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
             started->worker.token,
             checkpointBody(manifestSha));
    VERIFY_ERROR(refused, 413, "payload_too_large");
    QVERIFY2(refused.error()
                 .value(QLatin1String("message"))
                 .toString()
                 .contains(QLatin1String("checkpoint_max_bytes")),
             qPrintable(refused.describe()));
    QVERIFY(
        job(started->user, started->uuid).value(QLatin1String("checkpoints")).toArray().isEmpty());
    // Refused before it was remembered: no worker may fetch its files by it.
    QVERIFY(!registered(manifestSha));
}

void tst_ApiCheckpoints::declaredSizesAreNotTrusted()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ckpt-declared"));
    QVERIFY(started);
    const QString path = QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId);
    // Over the limit (1 MiB) as stored, one byte as the manifest declares it.
    const QByteArray big = someBytes("ckpt declared big", 1024 * 1024 + 1);
    QVERIFY(!uploadBlob(started->worker.token, big).isEmpty());
    const QString liarSha = uploadBlob(started->worker.token,
                                       manifestOf({{QStringLiteral("big.bin"), big}}, 1));
    QVERIFY(!liarSha.isEmpty());
    const Answer refused = post(path, started->worker.token, checkpointBody(liarSha));
    VERIFY_ERROR(refused, 400, "bad_request");
    QVERIFY2(refused.error().value(QLatin1String("message")).toString().contains(
                 QLatin1String("big.bin")),
             qPrintable(refused.describe()));
    QVERIFY(!registered(liarSha));
    QVERIFY(
        job(started->user, started->uuid).value(QLatin1String("checkpoints")).toArray().isEmpty());

    // A small file declared larger than it is is refused too: the size shown is the stored one.
    const QByteArray small = someBytes("ckpt declared small", 100);
    QVERIFY(!uploadBlob(started->worker.token, small).isEmpty());
    const QString inflatedSha = uploadBlob(started->worker.token,
                                           manifestOf({{QStringLiteral("s.bin"), small}}, 5000));
    VERIFY_ERROR(post(path, started->worker.token, checkpointBody(inflatedSha)), 400, "bad_request");
    const QString honestSha =
        uploadBlob(started->worker.token, manifestOf({{QStringLiteral("s.bin"), small}}));
    const Answer recorded = post(path, started->worker.token, checkpointBody(honestSha));
    VERIFY_STATUS(recorded, 200);
    QCOMPARE(recorded.json().value(QLatin1String("size")).toInteger(), qint64(small.size()));
    QVERIFY(registered(honestSha));
}

void tst_ApiCheckpoints::zeroLimitMeansNoLimit()
{
    // The operator sets checkpoint_max_bytes: 0 and restarts the server.
    QString restarted = restartServer([](ServerConfig &config) { config.checkpointMaxBytes = 0; });
    QVERIFY2(restarted.isEmpty(), qPrintable(restarted));
    const auto restore = qScopeGuard([this] {
        const QString back = restartServer(
            [](ServerConfig &config) { config.checkpointMaxBytes = 1024 * 1024; });
        if (!back.isEmpty())
            qWarning("the server did not start again: %s", qPrintable(back));
    });
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ckpt-nolimit"));
    QVERIFY(started);
    // The worker reads 0 as "no limit" (worker/runner/checkpointsync.cpp); so does the server.
    QCOMPARE(started->lease.value(QLatin1String("checkpoint_max_bytes")).toInteger(-1), qint64(0));
    const QByteArray state = someBytes("ckpt no limit", 1024 * 1024 + 1);
    QVERIFY(!uploadBlob(started->worker.token, state).isEmpty());
    const QString manifestSha =
        uploadBlob(started->worker.token, manifestOf({{QStringLiteral("state.bin"), state}}));
    QVERIFY(!manifestSha.isEmpty());
    const Answer recorded =
        post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
             started->worker.token,
             checkpointBody(manifestSha));
    VERIFY_STATUS(recorded, 200);
    QCOMPARE(recorded.json().value(QLatin1String("size")).toInteger(), qint64(state.size()));
}

void tst_ApiCheckpoints::quarantinedWorkerRecordsNone()
{
    const std::optional<RunningTask> started =
        startOneTask(QStringLiteral("ckpt-quarantined"));
    QVERIFY(started);
    const QByteArray state = someBytes("ckpt quarantined", 2000);
    QVERIFY(!uploadBlob(started->worker.token, state).isEmpty());
    const QString manifestSha =
        uploadBlob(started->worker.token, manifestOf({{QStringLiteral("state.bin"), state}}));
    QVERIFY(!manifestSha.isEmpty());
    {
        // The admin quarantines it (ddl-server workers quarantine: a second connection).
        Result<QSqlDatabase> db =
            Database::open(m_dataDir, QStringLiteral("tst-ckpt-quarantine"), m_database);
        QVERIFY2(db, db ? "" : qPrintable(db.error().message));
        QVERIFY(TrustService(*db).quarantine(started->worker.id, QStringLiteral("wrong answers")));
    }
    const Answer refused =
        post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
             started->worker.token,
             checkpointBody(manifestSha));
    VERIFY_ERROR(refused, 403, "forbidden");
    QVERIFY2(refused.error().value(QLatin1String("message")).toString().contains(
                 QLatin1String("quarantined (wrong answers)")),
             qPrintable(refused.describe()));
    QVERIFY(
        job(started->user, started->uuid).value(QLatin1String("checkpoints")).toArray().isEmpty());
    QVERIFY(!registered(manifestSha));
}

void tst_ApiCheckpoints::manifestOfTooManyFilesIsRefusedUnread()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ckpt-many"));
    QVERIFY(started);
    // 100,001 files (each the same small blob): one over what the server reads of a checkpoint.
    const QByteArray piece = someBytes("ckpt many", 10);
    QVERIFY(!uploadBlob(started->worker.token, piece).isEmpty());
    QJsonArray entries;
    for (int i = 0; i <= 100'000; ++i) {
        entries.append(QJsonObject{{QStringLiteral("path"), QStringLiteral("f%1").arg(i, 6, 10, QLatin1Char('0'))},
                                   {QStringLiteral("size"), piece.size()},
                                   {QStringLiteral("sha256"), sha256Of(piece)}});
    }
    const QByteArray json =
        QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("ddl-dataset")},
                                  {QStringLiteral("version"), 1},
                                  {QStringLiteral("files"), entries}})
            .toJson(QJsonDocument::Compact);
    const QString manifestSha = uploadBlob(started->worker.token, json);
    QVERIFY(!manifestSha.isEmpty());
    const Answer refused =
        post(QStringLiteral("/v1/workers/tasks/%1/checkpoint").arg(started->taskId),
             started->worker.token,
             checkpointBody(manifestSha));
    VERIFY_ERROR(refused, 413, "payload_too_large");
    const QString message = refused.error().value(QLatin1String("message")).toString();
    QVERIFY2(message.contains(QLatin1String("100001 files"))
                 && message.contains(QLatin1String("100000"))
                 && message.contains(QLatin1String("DDL_CHECKPOINT_DIR")),
             qPrintable(message));
    QVERIFY(!registered(manifestSha));
}

QTEST_GUILESS_MAIN(tst_ApiCheckpoints)
#include "tst_api_checkpoints.moc"
