// Log streaming against the fake server: batches, offsets, recovery from a lost answer.
#include "api/apiclient.h"
#include "fakeserver.h"
#include "runner/logstreamer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

class tst_LogStreamer : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void offsetFromMismatch_data();
    void offsetFromMismatch();
    void offsetFromErrorMember();
    void streamsAsWritten();
    void lostAnswerIsNotSentTwice();
    void drainSendsEverything();
    void drainGivesUpWhenServerIsAway();

private:
    QByteArray localLog() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeServer> m_server;
    std::unique_ptr<ddl::ApiClient> m_client;
};

void tst_LogStreamer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_server = std::make_unique<FakeServer>();
    m_server->workerToken = u"token"_s;
    m_client = std::make_unique<ddl::ApiClient>(m_server->url());
    m_client->setBearerToken(u"token"_s);
}

QByteArray tst_LogStreamer::localLog() const
{
    QFile file(m_dir->filePath(u"task.log"_s));
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
        ddl::worker::offsetFromMismatch(ddl::Error::make(u"offset_mismatch"_s, message), sent);
    QCOMPARE(offset.value_or(-1), expected);
}

void tst_LogStreamer::offsetFromErrorMember()
{
    ddl::Error error = ddl::Error::make(u"offset_mismatch"_s, u"task 3: 10 is not 25"_s);
    error.details.insert(u"offset"_s, 25);
    QCOMPARE(ddl::worker::offsetFromMismatch(error, 10).value_or(-1), 25);
}

void tst_LogStreamer::streamsAsWritten()
{
    LogStreamer log(m_client.get(), 17, m_dir->filePath(u"task.log"_s), 100);
    QVERIFY(log.open().ok());
    log.append("epoch 1\n");
    log.appendLine(u"a line of the worker"_s);
    QElapsedTimer clock;
    clock.start();
    QTRY_COMPARE_WITH_TIMEOUT(
        m_server->logs.value(17), QByteArray("epoch 1\n[ddl-worker] a line of the worker\n"), 2000);
    QVERIFY(clock.elapsed() < 1000);
    log.append("epoch 2\n");
    QTRY_VERIFY_WITH_TIMEOUT(m_server->logs.value(17).endsWith("epoch 2\n"), 2000);
    QCOMPARE(m_server->logs.value(17), localLog());
    QCOMPARE(log.sentOffset(), log.writtenBytes());
}

void tst_LogStreamer::lostAnswerIsNotSentTwice()
{
    m_server->loseNextLogAnswer = true;
    LogStreamer log(m_client.get(), 3, m_dir->filePath(u"task.log"_s), 50);
    QVERIFY(log.open().ok());
    log.append("first batch\n");
    // The server stored it but the worker saw a 500: it retries at the same offset, gets 409
    // with the stored length, and goes on from there.
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    log.append("second batch\n");
    QTRY_VERIFY_WITH_TIMEOUT(log.sentOffset() == log.writtenBytes(), 5000);
    QCOMPARE(m_server->logs.value(3), QByteArray("first batch\nsecond batch\n"));
}

void tst_LogStreamer::drainSendsEverything()
{
    LogStreamer log(m_client.get(), 5, m_dir->filePath(u"task.log"_s), 1000);
    QVERIFY(log.open().ok());
    QByteArray big;
    for (int i = 0; i < 100000; ++i)
        big += "line " + QByteArray::number(i) + " of a long training log\n";
    QVERIFY(big.size() > 2 * LogStreamer::MaxBatch);
    log.append(big);
    QSignalSpy drained(&log, &LogStreamer::drained);
    log.drain(10000);
    QVERIFY(drained.wait(10000));
    QCOMPARE(m_server->logs.value(5).size(), big.size());
    QCOMPARE(m_server->logs.value(5), big);
}

void tst_LogStreamer::drainGivesUpWhenServerIsAway()
{
    ddl::ApiClient nowhere(QUrl(u"http://127.0.0.1:1"_s));
    LogStreamer log(&nowhere, 9, m_dir->filePath(u"task.log"_s), 50);
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
