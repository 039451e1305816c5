// Task logs: written by offset, followed, kept apart by stream, surviving resends and crashes,
// and searched.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

#include "api/apiclient.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>

using namespace ddl;
using namespace ddl::server;

class tst_ApiLogs : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void logsAreWrittenAndReadByOffset();
    void logFollowStreamsUntilTheTaskEnds();
    void logStreamsAreKeptApart();
    void logStreamsSurviveResendsAndCrashes();
    void logSearchFindsMatchesEverywhere();
    void logSearchIsBoundedAndScoped();
};

void tst_ApiLogs::logsAreWrittenAndReadByOffset()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("logs"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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

void tst_ApiLogs::logFollowStreamsUntilTheTaskEnds()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("follow"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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
    // The server answers a follower's headers at once and then holds the stream open.
    QTRY_COMPARE_WITH_TIMEOUT(follow->streamingStatus(), 200, 5000);
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

void tst_ApiLogs::logStreamsAreKeptApart()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("streams"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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
                       11,
                       6,
                       "wrapsround"),
                 400,
                 "bad_request");
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

void tst_ApiLogs::logStreamsSurviveResendsAndCrashes()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("resends"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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

void tst_ApiLogs::logSearchFindsMatchesEverywhere()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("search"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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
    QSignalSpy slowSent(slow.get(), &ApiRequest::requestSent);
    QVERIFY(slowSent.wait(5000)); // the slow one is out before the quick one is asked
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

void tst_ApiLogs::logSearchIsBoundedAndScoped()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("searchscope"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
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

QTEST_GUILESS_MAIN(tst_ApiLogs)
#include "tst_api_logs.moc"
