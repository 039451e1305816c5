// The owner at the keyboard (docs/owners.md), end to end with the real ddl-server, ddl-worker
// and ddlcli as processes. The input device is a fake: a plain file the worker watches in place
// of /dev/tty*, /dev/pts/* and /dev/input/event* (--input-devices), whose modification time the
// test sets as a keystroke would stamp a terminal. A worker started with --idle-input-minutes
// runs a job's task while the "device" was untouched for longer than that; when "the owner
// types", the task is preempted and its job (retryCount 0) waits again without spending a retry,
// nothing is placed on the worker while the owner keeps typing, and once the owner stops for
// that long the job runs again and succeeds.
#include "clusterharness.h"
#include "polluntil.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace {

constexpr char User[] = "alice";
constexpr char Worker[] = "owners-desk";

// Ends on SIGTERM saying so; its second attempt (after the preemption) succeeds at once.
constexpr char Command[] = "trap 'echo got SIGTERM; exit 143' TERM; "
                           "echo attempt=$DDL_TASK_ATTEMPT; "
                           "if [ \"$DDL_TASK_ATTEMPT\" -gt 1 ]; then exit 0; fi; "
                           "while true; do sleep 0.2; done";

// Stamps the fake device as the kernel stamps a terminal that is read from or written to.
bool touch(const QString &path, const QDateTime &at)
{
    QFile file(path);
    return file.open(QIODevice::ReadWrite) && file.setFileTime(at, QFileDevice::FileAccessTime) &&
           file.setFileTime(at, QFileDevice::FileModificationTime);
}

} // namespace

class TestE2eInputIdleFakeInput : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ownerTypingPreemptsAndIdleRunsAgain();

private:
    QString logs(const QString &uuid);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    QString m_device; // the fake input device
};

void TestE2eInputIdleFakeInput::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    const QString input = m_cluster.path(u"fake-input"_s);
    QVERIFY(QDir().mkpath(input));
    m_device = input + u"/event0"_s;
    // Last used an hour ago: the owner is away.
    QVERIFY(touch(m_device, QDateTime::currentDateTime().addSecs(-3600)));
    // 0.05 minutes: 3 s without input count as idle.
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(Worker),
                                       {u"--idle-input-minutes"_s,
                                        u"0.05"_s,
                                        u"--input-devices"_s,
                                        input + u"/event*"_s,
                                        u"--preempt-notice"_s,
                                        u"5"_s,
                                        u"--slots"_s,
                                        u"1"_s,
                                        u"--gpus"_s,
                                        u"0"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s}));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    QVERIFY2(m_cluster.workerLog(QString::fromLatin1(Worker))
                 .contains(u"only after 3 s without input at "_s + input + u"/event*"_s),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2eInputIdleFakeInput::logs(const QString &uuid)
{
    return m_cluster.jobLogs(QString::fromLatin1(User), uuid);
}

QString TestE2eInputIdleFakeInput::diagnostics(const QString &uuid)
{
    return m_cluster.jobDiagnostics(QString::fromLatin1(User), uuid, {QString::fromLatin1(Worker)});
}

void TestE2eInputIdleFakeInput::ownerTypingPreemptsAndIdleRunsAgain()
{
    const QString user = QString::fromLatin1(User);
    const CliRun submitted =
        m_cluster.submitJobJson(user, u"typing"_s, openPaiJob(u"at-the-desk"_s,
                                        {{u"main"_s, 1, 0, QString::fromLatin1(Command)}},
                                        {{u"retryCount"_s, 0}}));
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));

    // The owner is away: the first attempt runs.
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"attempt=1"_s); }, 30000),
             qPrintable(diagnostics(uuid)));

    // The owner sits down and types, a keystroke every half second.
    QVERIFY(touch(m_device, QDateTime::currentDateTime()));
    QTimer typing;
    connect(
        &typing, &QTimer::timeout, this, [this] { touch(m_device, QDateTime::currentDateTime()); });
    typing.start(500);

    // The task gets SIGTERM; the job, with no retries, waits again saying why.
    QJsonObject job;
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"state"_s).toString() == "WAITING"_L1 &&
                            job.value(u"preemptions"_s).toInt() >= 1;
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"attempt"_s).toInt(), job.value(u"preemptions"_s).toInt() + 1);
    QCOMPARE(job.value(u"retry_count"_s).toInt(), 0);
    QJsonObject first;
    for (const QJsonValue &task : job.value(u"tasks"_s).toArray()) {
        if (task.toObject().value(u"attempt"_s).toInt() == 1)
            first = task.toObject();
    }
    QCOMPARE(first.value(u"state"_s).toString(), u"STOPPED"_s);
    QVERIFY2(first.value(u"message"_s)
                 .toString()
                 .contains(u"the owner is at the machine (input at "_s + m_device),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"got SIGTERM"_s); }, 10000),
             qPrintable(diagnostics(uuid)));

    // While the owner types, nothing is placed there: the scheduler says why.
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"reason"_s)
                         .toString()
                         .contains(u"the only worker online is in use by its owner"_s);
                 },
                 15000),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"state"_s).toString(), u"WAITING"_s);
    QVERIFY2(!logs(uuid).contains(u"attempt=2"_s), qPrintable(diagnostics(uuid)));

    // The owner leaves: after 3 s without input the job runs again and succeeds.
    typing.stop();
    const QString state = m_cluster.waitForJobEnd(user, uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    QVERIFY2(logs(uuid).contains(u"attempt=2"_s), qPrintable(diagnostics(uuid)));
    QVERIFY2(m_cluster.workerLog(QString::fromLatin1(Worker))
                 .contains(u"the owner's policy allows tasks again"_s),
             qPrintable(diagnostics(uuid)));
}

QTEST_GUILESS_MAIN(TestE2eInputIdleFakeInput)
#include "tst_e2e_inputidle_fakeinput.moc"
