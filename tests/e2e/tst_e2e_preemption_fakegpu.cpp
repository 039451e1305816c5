// The GPU's owner stays in control (docs/owners.md), end to end with the real ddl-server,
// ddl-worker and ddlcli as processes; the GPU is a fake nvidia-smi on the worker's PATH (no GPU
// on this machine) whose list of computing processes the test writes. A worker started with
// --only-when-idle runs a job's task; when "the owner" starts a GPU process the task gets
// SIGTERM (with DDL_PREEMPT_NOTICE_S known from its start), and its job, with retryCount 0,
// does not fail: it waits again, saying why, until the GPU is free, then runs and succeeds.
#include "clusterharness.h"
#include "fakenvidiasmi.h"
#include "polluntil.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr char User[] = "alice";
constexpr char Worker[] = "owners-pc";

// A task that says what it was told, ends on SIGTERM saying so, and otherwise runs until ended;
// its second attempt (after the preemption) succeeds at once.
constexpr char Command[] =
    "trap 'echo got SIGTERM; exit 143' TERM; "
    "echo notice=$DDL_PREEMPT_NOTICE_S attempt=$DDL_TASK_ATTEMPT; "
    "if [ \"$DDL_TASK_ATTEMPT\" -gt 1 ]; then echo second run; exit 0; fi; "
    "while true; do sleep 0.2; done";

} // namespace

class TestE2ePreemptionFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ownerBackPreemptsAndRequeuesWithoutSpendingARetry();

private:
    QString logs(const QString &uuid);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    FakeNvidiaSmi m_gpu; // one card; the test writes what computes on it
};

void TestE2ePreemptionFakeGpu::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_gpu.install(m_cluster.path(u"fake-gpu-bin"_s)));
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(Worker),
                                       {u"--only-when-idle"_s,
                                        u"--preempt-notice"_s,
                                        u"5"_s,
                                        u"--slots"_s,
                                        u"1"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s},
                                       m_gpu.environment()));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2ePreemptionFakeGpu::logs(const QString &uuid)
{
    return m_cluster.jobLogs(QString::fromLatin1(User), uuid);
}

QString TestE2ePreemptionFakeGpu::diagnostics(const QString &uuid)
{
    return m_cluster.jobDiagnostics(QString::fromLatin1(User), uuid, {QString::fromLatin1(Worker)});
}

void TestE2ePreemptionFakeGpu::ownerBackPreemptsAndRequeuesWithoutSpendingARetry()
{
    const QString user = QString::fromLatin1(User);
    const CliRun submitted =
        m_cluster.submitJobJson(user, u"preempt"_s, openPaiJob(u"preemptible"_s,
                     {{u"main"_s, 1, 1, QString::fromLatin1(Command)}},
                     {{u"retryCount"_s, 0}}));
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));

    // The first attempt runs, knowing its notice.
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"notice=5 attempt=1"_s); }, 30000),
             qPrintable(diagnostics(uuid)));

    // The owner starts a program on the GPU.
    QVERIFY(m_gpu.setComputeApps({{QCoreApplication::applicationPid(), 0}}));

    // The task gets SIGTERM; the job, with no retries, waits again saying why. Every attempt
    // after the first is a preemption's, none a retry's (the server may have placed the job
    // there again before the worker's heartbeat said its owner is back; the worker gives such a
    // task back unstarted).
    QJsonObject job;
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"state"_s).toString() == "WAITING"_L1
                            && job.value(u"preemptions"_s).toInt() >= 1;
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"attempt"_s).toInt(), job.value(u"preemptions"_s).toInt() + 1);
    const QString reason = job.value(u"reason"_s).toString();
    QVERIFY2(reason.contains(u"preempted on worker owners-pc: its owner needs the machine"_s)
                 && reason.contains(u"waiting for a worker"_s),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"retry_count"_s).toInt(), 0);
    const QJsonArray tasks = job.value(u"tasks"_s).toArray();
    QJsonObject first;
    for (const QJsonValue &task : tasks) {
        if (task.toObject().value(u"attempt"_s).toInt() == 1)
            first = task.toObject();
    }
    QCOMPARE(first.value(u"state"_s).toString(), u"STOPPED"_s);
    QVERIFY2(first.value(u"message"_s).toString().contains(u"the owner is using the GPU"_s),
             qPrintable(diagnostics(uuid)));
    bool eventSaysSo = false;
    for (const QJsonValue &event : job.value(u"events"_s).toArray())
        eventSaysSo |= event.toObject().value(u"message"_s).toString().contains(u"preempted on"_s);
    QVERIFY2(eventSaysSo, qPrintable(diagnostics(uuid)));
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"got SIGTERM"_s); }, 10000),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(m_cluster.workerLog(QString::fromLatin1(Worker)).contains(u"taking no tasks"_s),
             qPrintable(diagnostics(uuid)));

    // While the owner works, nothing is placed on the worker: a scheduling pass says why after
    // the preemption's reason.
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"reason"_s).toString().contains(
                         u"waiting for a worker: the only worker online is in use by its owner"_s);
                 },
                 15000),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"state"_s).toString(), u"WAITING"_s);
    qInfo("while the owner works: %s", qUtf8Printable(job.value(u"reason"_s).toString()));

    // The owner is done: the job runs again and succeeds.
    QVERIFY(m_gpu.setComputeApps({}));
    const QString state = m_cluster.waitForJobEnd(user, uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    QVERIFY2(logs(uuid).contains(u"second run"_s), qPrintable(diagnostics(uuid)));
    job = m_cluster.job(user, uuid);
    const int preemptions = job.value(u"preemptions"_s).toInt();
    QVERIFY2(preemptions >= 1, qPrintable(diagnostics(uuid)));
    QCOMPARE(job.value(u"attempt"_s).toInt(), preemptions + 1);
    qInfo("succeeded at attempt %d after %d preemption(s)", preemptions + 1, preemptions);
}

QTEST_GUILESS_MAIN(TestE2ePreemptionFakeGpu)
#include "tst_e2e_preemption_fakegpu.moc"
