// The owner lends some of the machine's GPUs (--lend-gpus), end to end with the real ddl-server,
// ddl-worker and ddlcli as processes; the three GPUs are a fake nvidia-smi on the worker's PATH
// (no GPU on this machine). The worker announces and gives tasks only the lent GPUs 0 and 2
// (the second named by its UUID), and with --only-when-idle a process of the owner on the GPU
// they kept (1) preempts nothing, while one on a lent GPU preempts the job, which runs again once
// the GPU is free.
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
constexpr char Worker[] = "three-gpus";

// Says which GPUs it was given (DDL_GPUS: the machine's nvidia-smi indexes; CUDA's numbers start
// at 0 in the sandbox, which shows only the task's own GPUs); the first attempt runs until
// ended, the next ones succeed.
constexpr char Command[] =
    "echo gpus=$DDL_GPUS visible=$CUDA_VISIBLE_DEVICES attempt=$DDL_TASK_ATTEMPT "
    "order=$CUDA_DEVICE_ORDER; "
    "if [ \"$DDL_TASK_ATTEMPT\" -gt 1 ]; then exit 0; fi; "
    "while true; do sleep 0.2; done";

} // namespace

class TestE2eLendGpusFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void onlyLentGpusAreGivenAndWatched();

private:
    QString logs(const QString &uuid);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    FakeNvidiaSmi m_gpus;
};

void TestE2eLendGpusFakeGpu::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_gpus.install(m_cluster.path(u"fake-gpu-bin"_s),
                           {{0, u"GPU-fake-0"_s}, {1, u"GPU-fake-1"_s}, {2, u"GPU-fake-2"_s}}));
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(Worker),
                                       {u"--lend-gpus"_s,
                                        u"0,GPU-fake-2"_s,
                                        u"--only-when-idle"_s,
                                        u"--preempt-notice"_s,
                                        u"5"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s},
                                       m_gpus.environment()));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    const QString log = m_cluster.workerLog(QString::fromLatin1(Worker));
    QVERIFY2(log.contains(u"2 GPU(s) [0: Fake GPU, 2: Fake GPU]"_s), qPrintable(log));
    QVERIFY2(log.contains(u"only while no other process uses GPU GPU-fake-0, GPU-fake-2"_s),
             qPrintable(log));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2eLendGpusFakeGpu::logs(const QString &uuid)
{
    return m_cluster.jobLogs(QString::fromLatin1(User), uuid);
}

QString TestE2eLendGpusFakeGpu::diagnostics(const QString &uuid)
{
    return m_cluster.jobDiagnostics(QString::fromLatin1(User), uuid, {QString::fromLatin1(Worker)});
}

void TestE2eLendGpusFakeGpu::onlyLentGpusAreGivenAndWatched()
{
    const QString user = QString::fromLatin1(User);
    const CliRun submitted =
        m_cluster.submitJobJson(user, u"lent"_s, openPaiJob(u"two-gpus"_s,
                                        {{u"main"_s, 2, 1, QString::fromLatin1(Command)}},
                                        {{u"retryCount"_s, 0}}));
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));

    // Both tasks run, one on each lent GPU; none on the GPU the owner kept.
    QVERIFY2(pollUntil(
                 [&] {
                     const QString text = logs(uuid);
                     return text.contains(u"gpus=0 visible=0 attempt=1 order=PCI_BUS_ID"_s) &&
                            text.contains(u"gpus=2 visible=0 attempt=1 order=PCI_BUS_ID"_s);
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(!logs(uuid).contains(u"gpus=1"_s), qPrintable(diagnostics(uuid)));

    // The owner computes on the GPU they kept: the worker checks every 2 s and lets the tasks be.
    QVERIFY(m_gpus.setComputeApps({{QCoreApplication::applicationPid(), 1}}));
    QTest::qWait(6000);
    QJsonObject job = m_cluster.job(user, uuid);
    QCOMPARE(job.value(u"state"_s).toString(), u"RUNNING"_s);
    QCOMPARE(job.value(u"preemptions"_s).toInt(), 0);
    QVERIFY2(!m_cluster.workerLog(QString::fromLatin1(Worker)).contains(u"taking no tasks"_s),
             qPrintable(diagnostics(uuid)));

    // Now on a lent GPU: the job is preempted and waits, spending no retry.
    QVERIFY(m_gpus.setComputeApps(
        {{QCoreApplication::applicationPid(), 1}, {QCoreApplication::applicationPid(), 2}}));
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"state"_s).toString() == "WAITING"_L1 &&
                            job.value(u"preemptions"_s).toInt() >= 1;
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(job.value(u"reason"_s).toString().contains(u"the owner is using the GPU"_s),
             qPrintable(diagnostics(uuid)));

    // Free again (the owner still on GPU 1): the job runs again and succeeds.
    QVERIFY(m_gpus.setComputeApps({{QCoreApplication::applicationPid(), 1}}));
    const QString state = m_cluster.waitForJobEnd(user, uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    QVERIFY2(!logs(uuid).contains(u"gpus=1"_s), qPrintable(diagnostics(uuid)));
}

QTEST_GUILESS_MAIN(TestE2eLendGpusFakeGpu)
#include "tst_e2e_lendgpus_fakegpu.moc"
