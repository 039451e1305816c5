// Artifacts: a task that succeeds with outputs, and an artifact whose size must match its blob.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

#include "api/apiclient.h"
#include "api/rangedownload.h"
#include "core/sha256.h"

using namespace ddl;
using namespace ddl::server;

class tst_ApiArtifacts : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void taskSucceedsWithArtifacts();
    void artifactSizeMustMatchItsBlob();
};

void tst_ApiArtifacts::taskSucceedsWithArtifacts()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("artifacts"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;

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

void tst_ApiArtifacts::artifactSizeMustMatchItsBlob()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("sizes"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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

QTEST_GUILESS_MAIN(tst_ApiArtifacts)
#include "tst_api_artifacts.moc"
