// Uploads and blobs: resumable uploads refused over the wire, a worker reading a package by
// ranges, and many small blobs in one batch, all or nothing.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

#include <QDirIterator>

using namespace ddl;
using namespace ddl::server;

class tst_ApiBlobs : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void uploadErrorsOverTheWire();
    void workerReadsPackageByRange();
    void batchStoresSmallBlobsAllOrNothing();
    void batchBlobsReadBackFromOnePack();
    void workerReadsBatchedPackageByRange();
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

    // The last n bytes (curl -r -100), and all of them when n is more than there are.
    const Answer last = get(path, worker.token, {}, {{"Range", "bytes=-100"}});
    VERIFY_STATUS(last, 206);
    QCOMPARE(last.body, package.right(100));
    QCOMPARE(last.header("Content-Range"),
             "bytes " + QByteArray::number(package.size() - 100) + '-' +
                 QByteArray::number(package.size() - 1) + '/' + QByteArray::number(package.size()));
    const Answer more = get(path, worker.token, {}, {{"Range", "bytes=-999999"}});
    VERIFY_STATUS(more, 206);
    QCOMPARE(more.body, package);
    // Several ranges at once, or another unit: the whole file, as RFC 9110 lets a server answer.
    const Answer several = get(path, worker.token, {}, {{"Range", "bytes=0-1,5-6"}});
    VERIFY_STATUS(several, 200);
    QCOMPARE(several.body, package);
    const Answer items = get(path, worker.token, {}, {{"Range", "items=0-1"}});
    VERIFY_STATUS(items, 200);
    QCOMPARE(items.body, package);

    VERIFY_ERROR(
        get(path, worker.token, {}, {{"Range", "bytes=5000-6000"}}), 416, "range_not_satisfiable");
    VERIFY_ERROR(
        get(path, worker.token, {}, {{"Range", "bytes=-0"}}), 416, "range_not_satisfiable");
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


void tst_ApiBlobs::batchStoresSmallBlobsAllOrNothing()
{
    const auto entry = [](const QString &declared, const QByteArray &bytes) -> QByteArray {
        return declared.toLatin1() + ' ' + QByteArray::number(bytes.size()) + '\n' + bytes;
    };
    const auto batch = [&](const QByteArray &body, const QString &user) {
        return send("POST", QStringLiteral("/v1/blobs/batch"), user, body, {},
                    "application/octet-stream");
    };
    const QByteArray a = "first small file\n", b = "second\n", empty;
    const QStringList digests{sha256Of(a), sha256Of(b), sha256Of(empty)};
    const auto missingFor = [&](const QString &user) {
        const Answer answer = post(QStringLiteral("/v1/blobs/missing"), user,
                                   {{QStringLiteral("sha256"), QJsonArray::fromStringList(digests)}});
        return answer.json().value(QLatin1String("missing")).toArray().size();
    };
    QCOMPARE(missingFor(m_alice), 3);

    // One blob is not what its line says: none of the batch is stored.
    VERIFY_ERROR(batch(entry(digests[0], a) + entry(digests[1], "not b"), m_alice), 422,
                 "digest_mismatch");
    QCOMPARE(missingFor(m_alice), 3);
    VERIFY_ERROR(batch("nonsense\n", m_alice), 400, "bad_request");
    VERIFY_ERROR(batch(digests[0].toLatin1() + " 100\nshort", m_alice), 400, "bad_request");
    const QByteArray big(1024 * 1024 + 1, 'x');
    VERIFY_ERROR(batch(entry(sha256Of(big), big), m_alice), 413, "payload_too_large");
    QCOMPARE(missingFor(m_alice), 3);

    const Answer stored =
        batch(entry(digests[0], a) + entry(digests[1], b) + entry(digests[2], empty), m_alice);
    VERIFY_STATUS(stored, 200);
    QCOMPARE(stored.json().value(QLatin1String("stored")).toInt(), 3);
    QCOMPARE(missingFor(m_alice), 0);
    // Blobs are the caller's: Bob still lacks them until he sends their bytes himself.
    QCOMPARE(missingFor(m_bob), 3);
    // Sent again: nothing changes.
    VERIFY_STATUS(batch(entry(digests[0], a), m_alice), 200);
    QCOMPARE(missingFor(m_alice), 0);

    // More blobs than one statement records, one of them twice and one stored before: each
    // becomes Bob's.
    QByteArray many = entry(digests[0], a);
    QStringList manyDigests{digests[0]};
    for (int i = 0; i < 600; ++i) {
        const QByteArray bytes = "blob " + QByteArray::number(i);
        many += entry(sha256Of(bytes), bytes);
        manyDigests.append(sha256Of(bytes));
    }
    many += entry(sha256Of("blob 5"), "blob 5");
    const Answer manyStored = batch(many, m_bob);
    VERIFY_STATUS(manyStored, 200);
    QCOMPARE(manyStored.json().value(QLatin1String("stored")).toInt(), 602);
    const Answer bobLacks = post(QStringLiteral("/v1/blobs/missing"), m_bob,
                                 {{QStringLiteral("sha256"),
                                   QJsonArray::fromStringList(manyDigests)}});
    QCOMPARE(bobLacks.json().value(QLatin1String("missing")).toArray().size(), 0);
}

static QByteArray batchEntry(const QByteArray &bytes)
{
    return sha256Of(bytes).toLatin1() + ' ' + QByteArray::number(bytes.size()) + '\n' + bytes;
}

static QStringList filesUnder(const QString &folder)
{
    QStringList files;
    QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    return files;
}

void tst_ApiBlobs::batchBlobsReadBackFromOnePack()
{
    // Three blobs of a batch, back to back in one pack: each reads back as itself, whole and by
    // ranges, and no range shows a neighbour's bytes.
    const QByteArray first = someBytes("pack first", 5000), middle = someBytes("pack middle", 700),
                     last = someBytes("pack last", 3000);
    const QStringList packsBefore = filesUnder(m_dataDir + QStringLiteral("/packs"));
    const QStringList blobFilesBefore = filesUnder(m_dataDir + QStringLiteral("/blobs"));
    VERIFY_STATUS(send("POST", QStringLiteral("/v1/blobs/batch"), m_alice,
                       batchEntry(first) + batchEntry(middle) + batchEntry(last), {},
                       "application/octet-stream"),
                  200);
    // One new file for the whole batch, none per blob.
    const QStringList packs = filesUnder(m_dataDir + QStringLiteral("/packs"));
    QCOMPARE(packs.size(), packsBefore.size() + 1);
    QCOMPARE(filesUnder(m_dataDir + QStringLiteral("/blobs")), blobFilesBefore);

    const auto blobPath = [](const QByteArray &bytes) -> QString {
        return QStringLiteral("/v1/blobs/") + sha256Of(bytes);
    };
    for (const QByteArray &bytes : {first, middle, last}) {
        const Answer whole = get(blobPath(bytes), m_alice);
        VERIFY_STATUS(whole, 200);
        QCOMPARE(whole.body, bytes);
        QCOMPARE(whole.header("ETag"), '"' + sha256Of(bytes).toLatin1() + '"');
    }
    // HEAD tells the blob's own size, not the pack's.
    const Answer head = send("HEAD", blobPath(middle), m_alice);
    VERIFY_STATUS(head, 200);
    QVERIFY(head.body.isEmpty());
    QCOMPARE(head.header("Content-Length"), "700");
    const Answer slice = get(blobPath(middle), m_alice, {}, {{"Range", "bytes=100-199"}});
    VERIFY_STATUS(slice, 206);
    QCOMPARE(slice.body, middle.mid(100, 100));
    QCOMPARE(slice.header("Content-Range"), "bytes 100-199/700");
    // A range reaching past the blob's end stops at it, not in the next blob.
    const Answer beyond = get(blobPath(middle), m_alice, {}, {{"Range", "bytes=600-5000"}});
    VERIFY_STATUS(beyond, 206);
    QCOMPARE(beyond.body, middle.mid(600));
    QCOMPARE(beyond.header("Content-Range"), "bytes 600-699/700");
    // A range starting past the blob's end is refused, though the pack goes on.
    VERIFY_ERROR(get(blobPath(middle), m_alice, {}, {{"Range", "bytes=700-800"}}), 416,
                 "range_not_satisfiable");
    VERIFY_ERROR(get(blobPath(first), m_alice, {}, {{"Range", "bytes=5000-"}}), 416,
                 "range_not_satisfiable");
    // Still Alice's only.
    VERIFY_ERROR(get(blobPath(middle), m_bob), 404, "not_found");

    // The same blobs again, in another batch: held already, so no second pack.
    VERIFY_STATUS(send("POST", QStringLiteral("/v1/blobs/batch"), m_alice,
                       batchEntry(middle) + batchEntry(last), {}, "application/octet-stream"),
                  200);
    QCOMPARE(filesUnder(m_dataDir + QStringLiteral("/packs")).size(), packs.size());
    // Bob sends bytes the server holds in Alice's pack: they become his, read from that pack.
    VERIFY_STATUS(send("POST", QStringLiteral("/v1/blobs/batch"), m_bob, batchEntry(middle), {},
                       "application/octet-stream"),
                  200);
    QCOMPARE(filesUnder(m_dataDir + QStringLiteral("/packs")).size(), packs.size());
    const Answer bobs = get(blobPath(middle), m_bob);
    VERIFY_STATUS(bobs, 200);
    QCOMPARE(bobs.body, middle);
}

void tst_ApiBlobs::workerReadsBatchedPackageByRange()
{
    // A job's package sent in a batch between two other blobs: its worker reads just it.
    const QString user = newUser(QStringLiteral("packed-package@example.org"));
    const QByteArray before = someBytes("before the package", 2000),
                     package = someBytes("packed package", 3000),
                     after = someBytes("after the package", 2000);
    VERIFY_STATUS(send("POST", QStringLiteral("/v1/blobs/batch"), user,
                       batchEntry(before) + batchEntry(package) + batchEntry(after), {},
                       "application/octet-stream"),
                  200);
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("packed")), sha256Of(package));
    QVERIFY(!uuid.isEmpty());
    const Worker worker = enrollWorker(QStringLiteral("packed-worker"));
    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    const QString path = QStringLiteral("/v1/workers/blobs/") + sha256Of(package);

    const Answer whole = get(path, worker.token);
    VERIFY_STATUS(whole, 200);
    QCOMPARE(whole.body, package);
    const Answer slice = get(path, worker.token, {}, {{"Range", "bytes=2990-9999"}});
    VERIFY_STATUS(slice, 206);
    QCOMPARE(slice.body, package.mid(2990));
    QCOMPARE(slice.header("Content-Range"), "bytes 2990-2999/3000");
    VERIFY_ERROR(get(path, worker.token, {}, {{"Range", "bytes=3000-3999"}}), 416,
                 "range_not_satisfiable");
    // Its neighbours in the pack are no task's of this worker.
    VERIFY_ERROR(get(QStringLiteral("/v1/workers/blobs/") + sha256Of(after), worker.token), 404,
                 "not_found");
}

QTEST_GUILESS_MAIN(tst_ApiBlobs)
#include "tst_api_blobs.moc"
