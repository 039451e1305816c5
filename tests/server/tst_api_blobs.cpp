// Uploads and blobs: resumable uploads refused over the wire, and a worker reading a package by
// ranges.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

using namespace ddl;
using namespace ddl::server;

class tst_ApiBlobs : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void uploadErrorsOverTheWire();
    void workerReadsPackageByRange();
};

void tst_ApiBlobs::uploadErrorsOverTheWire()
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

void tst_ApiBlobs::workerReadsPackageByRange()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("ranges"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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

QTEST_GUILESS_MAIN(tst_ApiBlobs)
#include "tst_api_blobs.moc"
