// Utilisation graphs end to end, on a worker whose only GPU is a fake nvidia-smi on its PATH (no
// GPU on this machine): the real ddl-server, ddl-worker and ddlcli as processes; a task burns
// CPU and its job's utilisation shows that, its memory and the fake GPU's numbers; another user
// cannot read it; the stored series stays within the server's limit.
#include "clusterharness.h"
#include "fakenvidiasmi.h"
#include "polluntil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr int SamplesPerTask = 10;

} // namespace

class TestE2eUtilisationFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void busyTaskShowsCpuMemoryAndFakeGpu();

private:
    QJsonObject top(const QString &user, const QString &uuid, CliRun *run = nullptr);

    ClusterHarness m_cluster;
};

void TestE2eUtilisationFakeGpu::initTestCase()
{
    QVERIFY2(m_cluster.startServer(
                 {u"--utilisation-samples-per-task"_s, QString::number(SamplesPerTask)}),
             qPrintable(m_cluster.serverLog()));
    FakeNvidiaSmi gpu; // one card, 37% busy with 1234 MiB of 16384 in use
    QVERIFY(gpu.install(m_cluster.path(u"fake-gpu-bin"_s)));
    const QProcessEnvironment environment = gpu.environment();
    QVERIFY(
        m_cluster.startNamedWorker(u"fake-gpu"_s, {u"--sample-interval"_s, u"0.2"_s}, environment));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(u"fake-gpu"_s)));
    QVERIFY(m_cluster.registerAndLogin(u"alice"_s, u"alice-password"_s));
    QVERIFY(m_cluster.registerAndLogin(u"mallory"_s, u"mallory-password"_s));
}

QJsonObject TestE2eUtilisationFakeGpu::top(const QString &user, const QString &uuid, CliRun *run)
{
    const CliRun result =
        m_cluster.cli(user, {u"top"_s, u"--job_uuid="_s + uuid, u"--output=json"_s});
    if (run)
        *run = result;
    return QJsonDocument::fromJson(result.out.toUtf8()).object();
}

static QJsonArray samplesOf(const QJsonObject &answer)
{
    const QJsonArray tasks = answer.value(u"tasks"_s).toArray();
    return tasks.isEmpty() ? QJsonArray() : tasks.first().toObject().value(u"samples"_s).toArray();
}

void TestE2eUtilisationFakeGpu::busyTaskShowsCpuMemoryAndFakeGpu()
{
    // Three busy loops for 8 s, so that the task gets half a core even on a loaded machine.
    const QString burn = u"for i in 1 2 3; do timeout 8 sh -c 'while :; do :; done' & done; "
                         u"wait"_s;
    const QString repo = m_cluster.makeRepo(
        u"burn"_s, {{u"job.json"_s, openPaiJob(u"burn"_s, {{u"train"_s, 1, 1, burn}})}});
    QVERIFY(!repo.isEmpty());
    const CliRun submitted =
        m_cluster.cli(u"alice"_s, {u"submit"_s, u"--job_config=job.json"_s}, repo);
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));

    // While it runs: the busy task's CPU, its memory, and GPU 0 as the fake nvidia-smi reads it.
    QJsonObject busiest;
    QJsonObject answer;
    const PollResult busy = pollUntil(
        [&] {
            answer = top(u"alice"_s, uuid);
            for (const QJsonValue &sample : samplesOf(answer)) {
                if (sample.toObject().value(u"cpu_percent"_s).toDouble() >
                    busiest.value(u"cpu_percent"_s).toDouble(-1))
                    busiest = sample.toObject();
            }
            return busiest.value(u"cpu_percent"_s).toDouble() >= 50;
        },
        60000,
        u"a sample with CPU >= 50% of a core"_s,
        500);
    QVERIFY2(busy,
             qPrintable(busy.message + u'\n' + QString::fromUtf8(QJsonDocument(answer).toJson()) +
                        m_cluster.workerLog(u"fake-gpu"_s)));
    QVERIFY(busiest.value(u"memory_bytes"_s).toDouble() > 0);
    QCOMPARE(busiest.value(u"gpus"_s).toArray(),
             (QJsonArray{QJsonObject{{u"index"_s, 0},
                                     {u"utilisation_percent"_s, 37},
                                     {u"memory_used_mb"_s, 1234},
                                     {u"memory_total_mb"_s, 16384}}}));
    const QJsonObject task = answer.value(u"tasks"_s).toArray().first().toObject();
    QCOMPARE(task.value(u"worker"_s).toString(), u"fake-gpu"_s);
    QCOMPARE(task.value(u"gpu_indices"_s).toArray(), (QJsonArray{0}));
    const qint64 firstSeen = samplesOf(answer).first().toObject().value(u"at"_s).toInteger();

    // Another user does not learn that the job exists.
    CliRun refused;
    top(u"mallory"_s, uuid, &refused);
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains(u"no job "_s + uuid), qPrintable(refused.out + refused.err));

    QCOMPARE(m_cluster.waitForJobEnd(u"alice"_s, uuid), u"SUCCEEDED"_s);
    // 8 s at 0.2 s is about 40 samples: the series was thinned to the limit, its start kept.
    const QJsonArray samples = samplesOf(top(u"alice"_s, uuid));
    QVERIFY2(samples.size() <= SamplesPerTask && samples.size() >= SamplesPerTask / 2,
             qPrintable(QString::number(samples.size())));
    QCOMPARE(samples.first().toObject().value(u"at"_s).toInteger(), firstSeen);
    QVERIFY(samples.last().toObject().value(u"at"_s).toInteger() -
                samples.first().toObject().value(u"at"_s).toInteger() >=
            5000);

    // The table of ddlcli top names the task and its fake GPU.
    const CliRun table = m_cluster.cli(u"alice"_s, {u"top"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(table.exitCode == 0 && table.out.contains(u"train[0]"_s) &&
                 table.out.contains(u"0: 37% 1234/16384 MiB"_s),
             qPrintable(table.out + table.err));
}

QTEST_GUILESS_MAIN(TestE2eUtilisationFakeGpu)
#include "tst_e2e_utilisation_fakegpu.moc"
