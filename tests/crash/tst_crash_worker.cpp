// Crash safety of ddl-worker: while ddlcli submits a stream of OpenPAI jobs (retryCount 10), the
// test SIGKILLs the only worker 20 times at random moments and starts it again on its work dir.
// Each time, the killed worker's task processes must be gone with it (no orphan keeps running).
// At the end no job is stuck: every job ends, and ends SUCCEEDED (tasks lost with the worker
// were retried as new attempts). Before that, a job with retryCount 0 whose worker is killed
// under it must end FAILED after its one attempt, saying so.
//
// DDL_CRASH_SEED picks the random moments (the seed is printed); DDL_CRASH_KILLS their number.

#include "clusterharness.h"
#include "crashworkload.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace {

QString writeJob(ClusterHarness &cluster, const QString &name, const QString &command,
                 int retryCount)
{
    const QJsonObject role{{u"name"_s, u"worker"_s}, {u"taskNumber"_s, 1},
                           {u"cpuNumber"_s, 1},      {u"memoryMB"_s, 256},
                           {u"gpuNumber"_s, 0},      {u"command"_s, command}};
    const QJsonObject job{{u"jobName"_s, name},
                          {u"image"_s, u"ubuntu"_s},
                          {u"retryCount"_s, retryCount},
                          {u"taskRoles"_s, QJsonArray{role}}};
    const QString path = cluster.path(u"configs/"_s + name + u".json"_s);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(job).toJson()) <= 0)
        return {};
    return path;
}

// Processes whose command line holds marker (pgrep -f), pgrep itself not counted.
int processesWith(const QString &marker)
{
    QProcess pgrep;
    pgrep.start(u"pgrep"_s, {u"-f"_s, marker});
    pgrep.waitForFinished(5000);
    return int(QString::fromUtf8(pgrep.readAllStandardOutput())
                   .split(u'\n', Qt::SkipEmptyParts)
                   .size());
}

} // namespace

class tst_CrashWorker : public QObject
{
    Q_OBJECT

private slots:
    void killedWorkerLeavesNoJobStuck();
};

void tst_CrashWorker::killedWorkerLeavesNoJobStuck()
{
    const quint32 seed = qEnvironmentVariableIsSet("DDL_CRASH_SEED")
                             ? qgetenv("DDL_CRASH_SEED").toUInt()
                             : QRandomGenerator::global()->generate();
    const int kills = qEnvironmentVariableIntValue("DDL_CRASH_KILLS") > 0
                          ? qEnvironmentVariableIntValue("DDL_CRASH_KILLS")
                          : 20;
    qInfo("DDL_CRASH_SEED=%u, %d kills", seed, kills);
    QRandomGenerator random(seed);
    // Marks this run's task processes, so that the orphan check sees only them.
    const QString marker = u"crashmark-"_s + QUuid::createUuid().toString(QUuid::Id128).left(12);
    const QStringList workerArgs{u"--slots"_s, u"3"_s};

    ClusterHarness cluster;
    QVERIFY2(cluster.startServer(), qPrintable(cluster.serverLog()));
    QVERIFY(cluster.startNamedWorker(u"w1"_s, workerArgs));
    QVERIFY(pollUntil([&] { return cluster.serverLog().contains(u"enrolled from"_s); }, 15000));
    const QString user = u"bob"_s;
    QVERIFY(cluster.registerAndLogin(user, u"bob-password"_s));
    const QString repo = cluster.makeRepo(u"pai"_s, {{u"README.md"_s, "crash test\n"}});
    QVERIFY(!repo.isEmpty());

    // No retries: a task lost with its worker fails the job after its one attempt.
    const QString soloConfig = writeJob(cluster, u"solo"_s, u"sleep 60; echo "_s + marker, 0);
    const CliRun solo = cluster.cli(user, {u"submit"_s, u"--job_config="_s + soloConfig}, repo);
    const QString soloUuid = jobUuidOf(solo.out);
    QVERIFY2(!soloUuid.isEmpty(), qPrintable(solo.out + solo.err));
    QVERIFY(pollUntil(
        [&] {
            const QJsonArray tasks = cluster.job(user, soloUuid).value(u"tasks"_s).toArray();
            return !tasks.isEmpty() && processesWith(marker) > 0;
        },
        30000,
        {},
        250));
    QVERIFY(cluster.killNamedWorker(u"w1"_s));
    QVERIFY2(pollUntil([&] { return processesWith(marker) == 0; }, 5000, {}, 100),
             "the task of a SIGKILLed worker kept running");
    QVERIFY(cluster.startNamedWorker(u"w1"_s, workerArgs));
    QJsonObject soloJob;
    QVERIFY2(pollUntil(
                 [&] {
                     soloJob = cluster.job(user, soloUuid);
                     return ddl::isFinalState(soloJob.value(u"state"_s).toString());
                 },
                 30000,
                 {},
                 250),
             qPrintable(QString::fromUtf8(QJsonDocument(soloJob).toJson())));
    const QJsonArray soloTasks = soloJob.value(u"tasks"_s).toArray();
    QCOMPARE(soloJob.value(u"state"_s).toString(), u"FAILED"_s);
    QCOMPARE(soloJob.value(u"attempt"_s).toInt(), 1);
    QCOMPARE(soloTasks.size(), 1);
    qInfo("the solo job's task: %s",
          qPrintable(QString::fromUtf8(QJsonDocument(soloTasks[0].toObject()).toJson(
              QJsonDocument::Compact))));

    // The stream: jobs of a second or two, each allowed 10 retries.
    SubmissionStream stream(cluster, user, repo, u"job"_s, [&](const QString &name) {
        return std::pair{writeJob(cluster, name,
                                  u"sleep 1.5; echo done-"_s + name + u" "_s + marker, 10),
                         u"--job_config="_s};
    });
    int orphanChecks = 0;
    for (int kill = 0; kill < kills; ++kill) {
        stream.kick(); // one submission at a time, about one job per kill: the worker keeps up
        QTest::qWait(1000 + int(random.bounded(2000)));
        QVERIFY(cluster.killNamedWorker(u"w1"_s));
        orphanChecks += processesWith(marker) > 0 ? 1 : 0;
        QVERIFY2(pollUntil([&] { return processesWith(marker) == 0; }, 5000, {}, 100),
                 qPrintable(u"tasks of the worker killed %1 times kept running"_s.arg(kill + 1)));
        QVERIFY(cluster.startNamedWorker(u"w1"_s, workerArgs));
    }
    // A little time with a worker that stays, so that the last jobs run.
    QTest::qWait(2000);
    stream.stop();
    QVERIFY(pollUntil([&] { return !stream.running(); }, 60000));
    QVERIFY2(stream.accepted().size() >= kills / 2,
             qPrintable(u"%1 jobs accepted; %2"_s.arg(stream.accepted().size())
                            .arg(stream.lastFailure())));
    QVERIFY2(stream.uncertain().isEmpty(), qPrintable(stream.lastFailure()));

    QList<QJsonObject> jobs;
    const PollResult allFinal = pollUntil(
        [&] {
            jobs = listJobs(cluster, user);
            return !jobs.isEmpty() &&
                   std::all_of(jobs.cbegin(), jobs.cend(), [](const QJsonObject &job) {
                       return ddl::isFinalState(job.value(u"state"_s).toString());
                   });
        },
        90000,
        {},
        500);
    int retried = 0;
    for (const QJsonObject &job : std::as_const(jobs)) {
        const QString name = job.value(u"name"_s).toString();
        if (name == u"solo"_s)
            continue;
        const QString state = job.value(u"state"_s).toString();
        retried += job.value(u"attempt"_s).toInt() > 1 ? 1 : 0;
        QVERIFY2(state == u"SUCCEEDED"_s,
                 qPrintable(u"job %1 is %2 (all final: %3):\n%4\n--- worker ---\n%5"_s.arg(
                     name, state, allFinal ? u"yes"_s : u"no"_s,
                     QString::fromUtf8(QJsonDocument(
                         cluster.job(user, job.value(u"uuid"_s).toString())).toJson()),
                     cluster.workerLog(u"w1"_s).right(3000))));
    }
    QCOMPARE(jobs.size(), stream.accepted().size() + 1);
    qInfo("%d kills (%d with task processes running); %lld jobs all SUCCEEDED, %d of them "
          "after a retry",
          kills, orphanChecks, qint64(jobs.size() - 1), retried);
    QVERIFY2(retried >= 1, "no task was ever lost with its worker; the kills missed every task");
}

QTEST_GUILESS_MAIN(tst_CrashWorker)
#include "tst_crash_worker.moc"
