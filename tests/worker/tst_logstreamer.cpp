// Log streaming to the real ddl-server binary (a process on loopback over TLS, with a task leased
// to a worker enrolled by the test): batches, offsets, a batch the server already holds, and a
// server restored from a backup that holds less than the worker sent (409 offset_mismatch).
#include "api/apiclient.h"
#include "runner/logstreamer.h"
#include "serverprocess.h"
#include "serveruser.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

class tst_LogStreamer : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void offsetFromMismatch_data();
    void offsetFromMismatch();
    void offsetFromErrorMember();
    void streamsAsWritten();
    void batchTheServerHoldsIsNotStoredTwice();
    void resendsWhatARestoredServerLost();
    void drainSendsEverything();
    void streamsAreKeptApartByWholeLines();
    void unfinishedLinesGoOutAfterASecond();
    void logIndexTellsStreamOffsets();
    void drainGivesUpWhenServerIsAway();

private:
    // Starts a server with a job whose task is leased to a worker enrolled here; m_client then
    // speaks as that worker. Returns what went wrong, or an empty string.
    QString leaseATask();
    QByteArray serverLog(const QString &stream = {}) { return m_user->log(m_uuid, m_taskId, stream); }
    QByteArray localLog() const;
    QString logPath() const { return m_dir->filePath(u"task.log"_s); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ServerProcess> m_server;
    std::unique_ptr<ServerUser> m_user;
    std::unique_ptr<ddl::ApiClient> m_client;
    QString m_uuid;
    qint64 m_taskId = -1;
};

void tst_LogStreamer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void tst_LogStreamer::cleanup()
{
    m_client.reset();
    m_user.reset();
    if (m_server && QTest::currentTestFailed())
        qWarning("ddl-server's log:\n%s", qUtf8Printable(m_server->log()));
    m_server.reset();
}

QString tst_LogStreamer::leaseATask()
{
    m_server = std::make_unique<ServerProcess>(m_dir->filePath(u"server"_s));
    if (const QString started = m_server->start(); !started.isEmpty())
        return started;
    const QString enrollToken = ServerProcess::createEnrollToken(m_server->dataDir());
    if (enrollToken.isEmpty())
        return u"no enrollment token"_s;

    m_user = std::make_unique<ServerUser>(
        m_server->url(), m_server->caFile(), m_dir->filePath(u"uploads"_s));
    if (const ddl::Status registered = m_user->registerAndLogin(u"alice@example.org"_s);
        !registered) {
        return registered.error().message;
    }
    const ddl::Result<QString> package = m_user->upload("a package nobody unpacks here\n");
    if (!package)
        return package.error().message;
    const ddl::Result<QString> uuid = m_user->submit(jobSpec(u"ddl"_s, u"logs"_s), *package);
    if (!uuid)
        return uuid.error().message;
    m_uuid = *uuid;

    m_client = std::make_unique<ddl::ApiClient>(m_server->url(),
                                                *ddl::ServerTrust::fromCaFile(m_server->caFile()));
    const ddl::Result<ddl::ApiResponse> enrolled =
        m_client->postJsonSync(u"/v1/workers/enroll"_s,
                               {{u"enroll_token"_s, enrollToken},
                                {u"name"_s, u"log-worker"_s},
                                {u"hostname"_s, QSysInfo::machineHostName()},
                                {u"cpus"_s, 1},
                                {u"memory_mb"_s, 1024},
                                {u"gpus"_s, 0},
                                {u"slots"_s, 1}});
    if (!enrolled)
        return enrolled.error().message;
    m_client->setBearerToken(enrolled->json().value(u"worker_token"_s).toString());
    // The server places waiting tasks on workers as it sees fit; ask until it has.
    QJsonArray tasks;
    QElapsedTimer clock;
    clock.start();
    while (tasks.isEmpty() && clock.elapsed() < 10000) {
        const ddl::Result<ddl::ApiResponse> leased =
            m_client->postJsonSync(u"/v1/workers/lease"_s,
                                   {{u"free_slots"_s, 1},
                                    {u"free_gpus"_s, 0},
                                    {u"free_cpus"_s, 1},
                                    {u"free_memory_mb"_s, 1024}});
        if (!leased)
            return leased.error().message;
        tasks = leased->json().value(u"tasks"_s).toArray();
        if (tasks.isEmpty())
            QTest::qWait(100);
    }
    if (tasks.size() != 1)
        return u"expected one lease of the test's task, got %1"_s.arg(tasks.size());
    m_taskId = tasks.first()[u"task_id"_s].toInteger();
    return {};
}

QByteArray tst_LogStreamer::localLog() const
{
    QFile file(logPath());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void tst_LogStreamer::offsetFromMismatch_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<qint64>("sent");
    QTest::addColumn<qint64>("expected"); // -1: cannot tell
    QTest::newRow("stored after") << u"log offset 10 does not match the stored length 25"_s
                                  << qint64(10) << qint64(25);
    QTest::newRow("stored first") << u"expected offset 25, got 10"_s << qint64(10) << qint64(25);
    QTest::newRow("only the other") << u"the log holds 4096 bytes"_s << qint64(0) << qint64(4096);
    QTest::newRow("no number") << u"offset mismatch"_s << qint64(10) << qint64(-1);
    QTest::newRow("ambiguous") << u"task 17: offset 10 is not 25"_s << qint64(10) << qint64(-1);
}

void tst_LogStreamer::offsetFromMismatch()
{
    QFETCH(QString, message);
    QFETCH(qint64, sent);
    QFETCH(qint64, expected);
    const std::optional<qint64> offset =
        ddl::worker::offsetFromMismatch(ddl::Error::make(ddl::ErrorCode::OffsetMismatch, message), sent);
    QCOMPARE(offset.value_or(-1), expected);
}

void tst_LogStreamer::offsetFromErrorMember()
{
    ddl::Error error = ddl::Error::make(ddl::ErrorCode::OffsetMismatch, u"task 3: 10 is not 25"_s);
    error.details.insert(u"offset"_s, 25);
    QCOMPARE(ddl::worker::offsetFromMismatch(error, 10).value_or(-1), 25);
}

void tst_LogStreamer::streamsAsWritten()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    LogStreamer log(m_client.get(), m_taskId, logPath(), 100);
    QVERIFY(log.open().ok());
    log.append("epoch 1\n");
    log.appendLine(u"a line of the worker"_s);
    QElapsedTimer clock;
    clock.start();
    QTRY_COMPARE_WITH_TIMEOUT(
        serverLog(), QByteArray("epoch 1\n[ddl-worker] a line of the worker\n"), 2000);
    QVERIFY(clock.elapsed() < 1000);
    log.append("epoch 2\n");
    QTRY_VERIFY_WITH_TIMEOUT(serverLog().endsWith("epoch 2\n"), 2000);
    QCOMPARE(serverLog(), localLog());
    QCOMPARE(log.sentOffset(), log.writtenBytes());
}

void tst_LogStreamer::batchTheServerHoldsIsNotStoredTwice()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    // What a batch whose answer was lost on its way back leaves behind: the server holds it, and
    // the streamer sends it again from the same offset.
    QUrlQuery atStart;
    atStart.addQueryItem(u"offset"_s, u"0"_s);
    std::unique_ptr<ddl::ApiRequest> stored(m_client->sendBytes(
        "POST", u"/v1/workers/tasks/%1/log"_s.arg(m_taskId), "first batch\n", atStart));
    QVERIFY(stored->waitForFinished());

    LogStreamer log(m_client.get(), m_taskId, logPath(), 50);
    QVERIFY(log.open().ok());
    log.append("first batch\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    log.append("second batch\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    QCOMPARE(serverLog(), QByteArray("first batch\nsecond batch\n"));
    QCOMPARE(serverLog(), localLog());
}

void tst_LogStreamer::resendsWhatARestoredServerLost()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    LogStreamer log(m_client.get(), m_taskId, logPath(), 50);
    QVERIFY(log.open().ok());
    log.append("one\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);

    // A backup of the server's data dir while it holds "one\n"; then "two\n" arrives.
    const quint16 port = m_server->port();
    m_server->stop();
    const QString backup = m_dir->filePath(u"backup"_s);
    QVERIFY(ServerProcess::copyDataDir(m_server->dataDir(), backup));
    QString started = m_server->start(port);
    QVERIFY2(started.isEmpty(), qPrintable(started));
    log.append("two\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    QTRY_COMPARE(serverLog(), QByteArray("one\ntwo\n"));

    // The server is restored from the backup at the same address: it holds 4 bytes where the
    // streamer sent 8, answers the next batch with 409 and the length it holds, and the streamer
    // sends again from there.
    m_server = std::make_unique<ServerProcess>(backup);
    started = m_server->start(port);
    QVERIFY2(started.isEmpty(), qPrintable(started));
    QTRY_COMPARE(serverLog(), QByteArray("one\n"));
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(u"the server holds 4 bytes of the log, the worker "
                                            u"sent from 8; going on from 4"_s));
    log.append("three\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    QCOMPARE(serverLog(), QByteArray("one\ntwo\nthree\n"));
    QCOMPARE(serverLog(), localLog());
    // The stdout log was restored with the merged one, and is completed the same way.
    QCOMPARE(serverLog(u"stdout"_s), QByteArray("one\ntwo\nthree\n"));
    QCOMPARE(serverLog(u"stderr"_s), QByteArray());
}

void tst_LogStreamer::drainSendsEverything()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    LogStreamer log(m_client.get(), m_taskId, logPath(), 1000);
    QVERIFY(log.open().ok());
    QByteArray big;
    for (int i = 0; i < 100000; ++i)
        big += "line " + QByteArray::number(i) + " of a long training log\n";
    QVERIFY(big.size() > 2 * LogStreamer::MaxBatch);
    log.append(big);
    QSignalSpy drained(&log, &LogStreamer::drained);
    log.drain(10000);
    QVERIFY(drained.wait(10000));
    const QByteArray stored = serverLog();
    QCOMPARE(stored.size(), big.size());
    QCOMPARE(stored, big);
}

void tst_LogStreamer::streamsAreKeptApartByWholeLines()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    LogStreamer log(m_client.get(), m_taskId, logPath(), 50);
    QVERIFY(log.open().ok());
    // A stdout line written in pieces while stderr writes whole lines: the merged log never
    // holds half a line of one stream with the other's in the middle.
    log.appendLine(u"starting"_s);
    log.append("epoch 1 lo", LogSource::Stdout);
    log.append("warning: slow\n", LogSource::Stderr);
    log.append("ss 0.9\nepoch 2 ", LogSource::Stdout);
    log.append("progress ", LogSource::Stderr);
    log.append("loss 0.5\n", LogSource::Stdout);
    log.append("50%\n", LogSource::Stderr);
    QCOMPARE(localLog(), QByteArray("[ddl-worker] starting\nwarning: slow\nepoch 1 loss 0.9\n"
                                    "epoch 2 loss 0.5\nprogress 50%\n"));
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    QCOMPARE(serverLog(), localLog());
    QCOMPARE(serverLog(u"stdout"_s), QByteArray("epoch 1 loss 0.9\nepoch 2 loss 0.5\n"));
    QCOMPARE(serverLog(u"stderr"_s), QByteArray("warning: slow\nprogress 50%\n"));

    // The process ends in the middle of a line: it is written as it is, and the worker's own
    // next line still starts on a line of its own (in the merged log only).
    log.append("no newline at the end", LogSource::Stdout);
    log.flushPartialLines();
    log.appendLine(u"process finished: exit 0"_s);
    QSignalSpy drained(&log, &LogStreamer::drained);
    log.drain(5000);
    QVERIFY(drained.wait(5000));
    QVERIFY(serverLog().endsWith("no newline at the end\n[ddl-worker] process finished: exit 0\n"));
    QVERIFY(serverLog(u"stdout"_s).endsWith("epoch 2 loss 0.5\nno newline at the end"));
    QCOMPARE(serverLog(), localLog());
}

void tst_LogStreamer::unfinishedLinesGoOutAfterASecond()
{
    const QString leased = leaseATask();
    QVERIFY2(leased.isEmpty(), qPrintable(leased));
    LogStreamer log(m_client.get(), m_taskId, logPath(), 50);
    QVERIFY(log.open().ok());
    QElapsedTimer clock;
    clock.start();
    log.append("Downloading: 10%", LogSource::Stderr); // a progress bar that never ends a line
    QTest::qWait(300);
    QCOMPARE(localLog(), QByteArray());
    QTRY_COMPARE_WITH_TIMEOUT(serverLog(u"stderr"_s), QByteArray("Downloading: 10%"), 3000);
    QVERIFY(clock.elapsed() >= LogStreamer::PartialLineMs);
    // A long unfinished line goes out at once when it reaches 64 KiB.
    const QByteArray big(LogStreamer::PartialLineBytes, 'x');
    log.append(big, LogSource::Stdout);
    QCOMPARE(localLog().size(), 16 + big.size());
}

void tst_LogStreamer::logIndexTellsStreamOffsets()
{
    LogIndex index(m_dir->filePath(u"index"_s));
    QVERIFY(index.open().ok());
    index.append(LogSource::Worker, 10);
    index.append(LogSource::Stdout, 5);
    index.append(LogSource::Stdout, 5);
    index.append(LogSource::Stderr, 7);
    index.append(LogSource::Stdout, 3);
    QCOMPARE(index.size(), 30);
    const LogIndex::Position at12 = index.positionAt(12);
    QCOMPARE(at12.stdoutOffset, 2);
    QCOMPARE(at12.stderrOffset, 0);
    const LogIndex::Position atEnd = index.positionAt(30);
    QCOMPARE(atEnd.stdoutOffset, 13);
    QCOMPARE(atEnd.stderrOffset, 7);
    const QList<LogRun> runs = index.runs(12, 100, 10);
    QCOMPARE(runs.size(), 3);
    QCOMPARE(formatRuns(runs), u"o8,e7,o3"_s);
    QCOMPARE(formatRuns(index.runs(0, 12, 10)), u"w10,o2"_s);
    QCOMPARE(formatRuns(index.runs(0, 100, 2)), u"w10,o10"_s);
    // Where to send from when the server holds merged 29, stdout 10, stderr 7: the end of the
    // stderr run (27), where stdout is still 10.
    QCOMPARE(index.rewindPoint(29, 10, 7), 27);
    QCOMPARE(index.rewindPoint(29, 13, 2), 22);
    QCOMPARE(index.rewindPoint(30, 13, 7), 30);
    QCOMPARE(index.rewindPoint(5, 0, 0), 5);
}

void tst_LogStreamer::drainGivesUpWhenServerIsAway()
{
    ddl::ApiClient nowhere(QUrl(u"https://127.0.0.1:1"_s)); // nothing listens there
    LogStreamer log(&nowhere, 9, logPath(), 50);
    QVERIFY(log.open().ok());
    log.append("never arrives\n");
    QSignalSpy drained(&log, &LogStreamer::drained);
    QElapsedTimer clock;
    clock.start();
    log.drain(500);
    QVERIFY(drained.wait(5000));
    QVERIFY(clock.elapsed() >= 450);
    QCOMPARE(localLog(), QByteArray("never arrives\n")); // kept on disk
}

QTEST_GUILESS_MAIN(tst_LogStreamer)
#include "tst_logstreamer.moc"
