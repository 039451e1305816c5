// The scheduler with real processes: ddl-server and several ddl-workers on loopback, OpenPAI jobs
// submitted with ddlcli from real git repositories. A worker killed with SIGKILL mid-task, gangs
// that wait whole, cancel, per-user limits set by the admin, and the reasons of waiting jobs.
// Workers declare GPUs with --gpus (there is no real GPU here): tests that need them say so in
// their name (..._declaredGpus).
#include "clusterharness.h"
#include "polluntil.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QThread>
#include <functional>

using namespace Qt::Literals::StringLiterals;

namespace {

QList<QJsonObject> tasksOf(const QJsonObject &job, int attempt = 0)
{
    QList<QJsonObject> tasks;
    for (const QJsonValue &value : job.value(u"tasks"_s).toArray()) {
        if (attempt == 0 || value.toObject().value(u"attempt"_s).toInt() == attempt)
            tasks << value.toObject();
    }
    return tasks;
}

int countInState(const QList<QJsonObject> &tasks, const QString &state)
{
    int count = 0;
    for (const QJsonObject &task : tasks)
        count += task.value(u"state"_s).toString() == state ? 1 : 0;
    return count;
}

// Processes whose command line holds pattern (pgrep -f), not counting pgrep itself.
int processesMatching(const QString &pattern)
{
    QProcess pgrep;
    pgrep.start(u"pgrep"_s, {u"-f"_s, pattern});
    pgrep.waitForFinished(5000);
    return int(QString::fromUtf8(pgrep.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts).size());
}

} // namespace

class TestE2eScheduling : public QObject
{
    Q_OBJECT

private slots:
    void threeWorkersOneKilledMidTask();
    void gangIsNeverPartlyPlaced_declaredGpus();
    void cancelStopsEveryTaskWithinFiveSeconds();
    void perUserLimits();
    void pendingReasons();

private:
    // Starts the server and the named workers and waits until every worker has enrolled.
    bool startCluster(ClusterHarness &cluster, const QStringList &serverArgs,
                      const QList<std::pair<QString, QStringList>> &workers);
    QString submit(ClusterHarness &cluster,
                   const QString &user,
                   const QString &repo,
                   const QString &jobFile,
                   const QStringList &extraArgs = {});
    // The job's reason once the scheduler has given one (it may take a pass or two).
    QString waitForReason(ClusterHarness &cluster, const QString &user, const QString &uuid,
                          const QString &needle, int timeoutMs = 8000);
    QString diagnostics(ClusterHarness &cluster, const QString &user, const QString &uuid,
                        const QStringList &workers);
};

bool TestE2eScheduling::startCluster(ClusterHarness &cluster, const QStringList &serverArgs,
                                     const QList<std::pair<QString, QStringList>> &workers)
{
    if (!cluster.startServer(serverArgs)) {
        qWarning("server did not start: %s", qUtf8Printable(cluster.serverLog()));
        return false;
    }
    for (const auto &[name, args] : workers) {
        if (!cluster.startNamedWorker(name, args))
            return false;
    }
    static const QRegularExpression enrolled(u"enrolled from"_s);
    const PollResult all = pollUntil(
        [&] { return cluster.serverLog().count(enrolled) >= workers.size(); }, 15000, {}, 100);
    if (!all)
        qWarning("not every worker enrolled: %s", qUtf8Printable(cluster.serverLog()));
    return bool(all);
}

QString TestE2eScheduling::submit(ClusterHarness &cluster,
                                  const QString &user,
                                  const QString &repo,
                                  const QString &jobFile,
                                  const QStringList &extraArgs)
{
    const CliRun run =
        cluster.cli(user, QStringList{u"submit"_s, u"--job_config="_s + jobFile} + extraArgs, repo);
    const QString uuid = jobUuidOf(run.out);
    if (uuid.isEmpty())
        qWarning("submit of %s failed: %s %s", qUtf8Printable(jobFile), qUtf8Printable(run.out),
                 qUtf8Printable(run.err));
    return uuid;
}

QString TestE2eScheduling::waitForReason(ClusterHarness &cluster, const QString &user,
                                         const QString &uuid, const QString &needle,
                                         int timeoutMs)
{
    QString reason;
    pollUntil(
        [&] {
            const QJsonObject current = cluster.job(user, uuid);
            reason = current.value(u"reason"_s).toString();
            return current.value(u"state"_s).toString() == "WAITING"_L1 && reason.contains(needle);
        },
        timeoutMs,
        {},
        200);
    return reason;
}

QString TestE2eScheduling::diagnostics(ClusterHarness &cluster, const QString &user,
                                       const QString &uuid, const QStringList &workers)
{
    QString text = QString::fromUtf8(QJsonDocument(cluster.job(user, uuid)).toJson());
    for (const QString &worker : workers)
        text += u"\n--- "_s + worker + u" ---\n"_s + cluster.workerLog(worker).right(2000);
    return text + u"\n--- server ---\n"_s + cluster.serverLog().right(3000);
}

void TestE2eScheduling::threeWorkersOneKilledMidTask()
{
    ClusterHarness cluster;
    const QStringList names{u"w1"_s, u"w2"_s, u"w3"_s};
    QVERIFY(startCluster(cluster, {u"--worker-timeout"_s, u"4"_s},
                         {{names[0], {u"--slots"_s, u"1"_s}},
                          {names[1], {u"--slots"_s, u"1"_s}},
                          {names[2], {u"--slots"_s, u"1"_s}}}));
    const QString user = u"alice"_s;
    QVERIFY(cluster.registerAndLogin(user, u"alice-password"_s));
    const QString repo =
        cluster.makeRepo(u"retry"_s,
                         {{u"job.json"_s,
                           openPaiJob(u"survives-a-lost-worker"_s,
                                      {{u"main"_s, 1, 0, u"sleep 8; echo finished"_s}},
                                      {{u"retryCount"_s, 1}})}});
    QVERIFY(!repo.isEmpty());
    const QString uuid = submit(cluster, user, repo, u"job.json"_s);
    QVERIFY(!uuid.isEmpty());

    // Once its process runs, the worker holding the task is killed without a word to the server.
    QString victim;
    QVERIFY2(pollUntil(
                 [&] {
                     const QJsonObject current = cluster.job(user, uuid);
                     const QList<QJsonObject> tasks = tasksOf(current, 1);
                     if (current.value(u"state"_s).toString() != "RUNNING"_L1 ||
                         tasks.size() != 1 || tasks[0].value(u"state"_s).toString() != "RUNNING"_L1)
                         return false;
                     victim = tasks[0].value(u"worker"_s).toString();
                     return !victim.isEmpty();
                 },
                 20000),
             qPrintable(diagnostics(cluster, user, uuid, names)));
    QVERIFY2(names.contains(victim), qPrintable(victim));
    QVERIFY(cluster.killNamedWorker(victim));
    qInfo("killed %s, which ran the task", qUtf8Printable(victim));

    const QString state = cluster.waitForJobEnd(user, uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(cluster, user, uuid, names)));

    // Both attempts are kept, each with its worker.
    const QJsonObject finished = cluster.job(user, uuid);
    const QString shown = QString::fromUtf8(QJsonDocument(finished).toJson());
    QCOMPARE(finished.value(u"attempt"_s).toInt(), 2);
    const QList<QJsonObject> first = tasksOf(finished, 1);
    const QList<QJsonObject> second = tasksOf(finished, 2);
    QVERIFY2(first.size() == 1 && second.size() == 1, qPrintable(shown));
    QCOMPARE(first[0].value(u"state"_s).toString(), u"FAILED"_s);
    QCOMPARE(first[0].value(u"worker"_s).toString(), victim);
    QVERIFY2(first[0].value(u"message"_s).toString().contains(u"its worker stopped answering"_s),
             qPrintable(shown));
    QCOMPARE(second[0].value(u"state"_s).toString(), u"SUCCEEDED"_s);
    QCOMPARE(second[0].value(u"exit_code"_s).toInt(-1), 0);
    const QString rescuer = second[0].value(u"worker"_s).toString();
    QVERIFY2(names.contains(rescuer) && rescuer != victim, qPrintable(shown));
    qInfo("attempt 1 on %s: %s; attempt 2 on %s", qUtf8Printable(victim),
          qUtf8Printable(first[0].value(u"message"_s).toString()), qUtf8Printable(rescuer));
    QVERIFY2(first[0].value(u"id"_s).toInteger() != second[0].value(u"id"_s).toInteger(),
             qPrintable(shown));
    QVERIFY2(cluster.serverLog().contains(u"missed its heartbeats"_s),
             qPrintable(cluster.serverLog().right(3000)));
}

void TestE2eScheduling::gangIsNeverPartlyPlaced_declaredGpus()
{
    ClusterHarness cluster;
    const QStringList names{u"g1"_s, u"g2"_s};
    QVERIFY(startCluster(cluster, {},
                         {{names[0], {u"--gpus"_s, u"2"_s}}, {names[1], {u"--gpus"_s, u"2"_s}}}));
    const QString user = u"bob"_s;
    QVERIFY(cluster.registerAndLogin(user, u"bob-password1"_s));
    const QString repo = cluster.makeRepo(
        u"gang"_s,
        {{u"hold.json"_s, openPaiJob(u"holds-one-gpu"_s, {{u"hold"_s, 1, 1, u"sleep 300"_s}})},
         {u"gang.json"_s,
          openPaiJob(u"gang-of-two"_s,
                     {{u"trainer"_s, 2, 2,
                       u"echo \"visible=$CUDA_VISIBLE_DEVICES\"; sleep 2"_s}})}});
    QVERIFY(!repo.isEmpty());

    const QString hold = submit(cluster, user, repo, u"hold.json"_s);
    QVERIFY(!hold.isEmpty());
    QVERIFY2(
        pollUntil(
            [&] { return cluster.job(user, hold).value(u"state"_s).toString() == "RUNNING"_L1; },
            20000),
        qPrintable(diagnostics(cluster, user, hold, names)));

    // 3 GPUs are free, but not 2 on each of two workers: the gang waits whole.
    const QString gang = submit(cluster, user, repo, u"gang.json"_s);
    QVERIFY(!gang.isEmpty());
    QElapsedTimer watched;
    watched.start();
    QString reason;
    int polls = 0;
    while (watched.elapsed() < 4000) {
        const QJsonObject current = cluster.job(user, gang);
        const QList<QJsonObject> tasks = tasksOf(current);
        const QString shown = QString::fromUtf8(QJsonDocument(current).toJson());
        QCOMPARE(current.value(u"state"_s).toString(), u"WAITING"_s);
        QVERIFY2(tasks.size() == 2 && countInState(tasks, u"WAITING"_s) == 2, qPrintable(shown));
        for (const QJsonObject &task : tasks)
            QVERIFY2(task.value(u"worker"_s).isNull(), qPrintable(shown));
        reason = current.value(u"reason"_s).toString();
        ++polls;
        QThread::msleep(250);
    }
    QVERIFY(polls >= 3);
    qInfo("the gang waits: %s", qUtf8Printable(reason));
    QVERIFY2(!reason.isEmpty(), "a waiting gang must say why it waits");
    QVERIFY2(reason.contains(u"GPU"_s), qPrintable(reason));

    // Once the held GPU is free, both tasks start at once, one per worker, 2 GPUs each by index.
    const CliRun cancel = cluster.cli(user, {u"cancel"_s, u"--job_uuid="_s + hold});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    bool sawPartial = false;
    QString state;
    QVERIFY2(pollUntil(
                 [&] {
                     const QJsonObject current = cluster.job(user, gang);
                     const QList<QJsonObject> tasks = tasksOf(current);
                     const int waiting = countInState(tasks, u"WAITING"_s);
                     if (waiting != 0 && waiting != tasks.size())
                         sawPartial = true;
                     state = current.value(u"state"_s).toString();
                     return ddl::isFinalState(state);
                 },
                 30000,
                 {},
                 150),
             qPrintable(diagnostics(cluster, user, gang, names)));
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(diagnostics(cluster, user, gang, names)));
    QVERIFY(!sawPartial);
    QCOMPARE(cluster.job(user, hold).value(u"state"_s).toString(), u"STOPPED"_s);

    const QJsonObject finished = cluster.job(user, gang);
    const QString shown = QString::fromUtf8(QJsonDocument(finished).toJson());
    const QList<QJsonObject> tasks = tasksOf(finished);
    QVERIFY2(tasks.size() == 2, qPrintable(shown));
    QSet<QString> workers;
    static const QRegularExpression visible(u"^visible=(.*)$"_s);
    for (const QJsonObject &task : tasks) {
        QCOMPARE(task.value(u"state"_s).toString(), u"SUCCEEDED"_s);
        workers.insert(task.value(u"worker"_s).toString());
        QStringList indices;
        for (const QJsonValue &line : task.value(u"log_tail"_s).toArray()) {
            const QRegularExpressionMatch match = visible.match(line.toString().trimmed());
            if (match.hasMatch())
                indices = match.captured(1).split(u',', Qt::SkipEmptyParts);
        }
        QVERIFY2(indices.size() == 2, qPrintable(shown));
        QVERIFY2(QSet<QString>(indices.begin(), indices.end())
                     == (QSet<QString>{u"0"_s, u"1"_s}),
                 qPrintable(shown));
    }
    QCOMPARE(workers, (QSet<QString>{names[0], names[1]}));
    // Placed in one pass: both started within a heartbeat of each other.
    const QDateTime a = QDateTime::fromString(tasks[0].value(u"started_at"_s).toString(), Qt::ISODateWithMs);
    const QDateTime b = QDateTime::fromString(tasks[1].value(u"started_at"_s).toString(), Qt::ISODateWithMs);
    QVERIFY2(a.isValid() && b.isValid() && qAbs(a.msecsTo(b)) < 2000, qPrintable(shown));
}

void TestE2eScheduling::cancelStopsEveryTaskWithinFiveSeconds()
{
    ClusterHarness cluster;
    const QStringList names{u"c1"_s, u"c2"_s, u"c3"_s};
    QVERIFY(startCluster(cluster, {},
                         {{names[0], {u"--slots"_s, u"1"_s}},
                          {names[1], {u"--slots"_s, u"1"_s}},
                          {names[2], {u"--slots"_s, u"1"_s}}}));
    const QString user = u"carol"_s;
    QVERIFY(cluster.registerAndLogin(user, u"carol-password"_s));
    // A duration no other process on the machine is likely to sleep, so pgrep sees only ours.
    const QString sleeper = u"sleep 300.0417"_s;
    const QString repo = cluster.makeRepo(
        u"cancel"_s, {{u"job.json"_s, openPaiJob(u"three-sleepers"_s, {{u"sleeper"_s, 3, 0, sleeper}})}});
    QVERIFY(!repo.isEmpty());
    const QString uuid = submit(cluster, user, repo, u"job.json"_s);
    QVERIFY(!uuid.isEmpty());

    QVERIFY2(pollUntil(
                 [&] {
                     const QJsonObject current = cluster.job(user, uuid);
                     return current.value(u"state"_s).toString() == "RUNNING"_L1 &&
                            countInState(tasksOf(current), u"RUNNING"_s) == 3 &&
                            processesMatching(sleeper) >= 3;
                 },
                 30000),
             qPrintable(diagnostics(cluster, user, uuid, names)));
    QSet<QString> workers;
    for (const QJsonObject &task : tasksOf(cluster.job(user, uuid)))
        workers.insert(task.value(u"worker"_s).toString());
    QCOMPARE(workers, (QSet<QString>(names.begin(), names.end())));

    QElapsedTimer sinceCancel;
    sinceCancel.start();
    const CliRun cancel = cluster.cli(user, {u"cancel"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QJsonObject stopped;
    const PollResult allStopped = pollUntil(
        [&] {
            stopped = cluster.job(user, uuid);
            return countInState(tasksOf(stopped), u"STOPPED"_s) == 3;
        },
        5000,
        {},
        100);
    const qint64 tookMs = sinceCancel.elapsed();
    QVERIFY2(allStopped && tookMs <= 5000,
             qPrintable(u"after %1 ms:\n"_s.arg(tookMs)
                        + diagnostics(cluster, user, uuid, names)));
    QCOMPARE(stopped.value(u"state"_s).toString(), u"STOPPED"_s);
    qInfo("every task STOPPED %lld ms after cancel", tookMs);
    const PollResult noneLeft = pollUntil([&] { return processesMatching(sleeper) == 0; },
                                          int(std::max<qint64>(0, 5000 - sinceCancel.elapsed())),
                                          {},
                                          100);
    QVERIFY2(noneLeft, qPrintable(u"%1 processes of \"%2\" remain %3 ms after cancel"_s
                                      .arg(processesMatching(sleeper))
                                      .arg(sleeper)
                                      .arg(sinceCancel.elapsed())));
}

void TestE2eScheduling::perUserLimits()
{
    ClusterHarness cluster;
    const QStringList names{u"l1"_s};
    QVERIFY(startCluster(cluster, {}, {{names[0], {u"--gpus"_s, u"2"_s, u"--slots"_s, u"3"_s}}}));
    const QString dave = u"dave"_s;
    const QString erin = u"erin"_s;
    QVERIFY(cluster.registerAndLogin(dave, u"dave-password"_s));
    QVERIFY(cluster.registerAndLogin(erin, u"erin-password"_s));
    for (const auto &[email, limits] :
         {std::pair{u"dave@example.org"_s, QStringList{u"--max-running-jobs"_s, u"1"_s}},
          std::pair{u"erin@example.org"_s, QStringList{u"--max-gpus"_s, u"1"_s}}}) {
        const CliRun set = cluster.setUserLimits(email, limits);
        QVERIFY2(set.exitCode == 0, qPrintable(set.out + set.err));
    }
    // No wait: the running server reads the limits at each scheduling pass.

    const QString repo = cluster.makeRepo(
        u"limits"_s,
        {{u"first.json"_s, openPaiJob(u"first"_s, {{u"main"_s, 1, 0, u"sleep 4"_s}})},
         {u"second.json"_s, openPaiJob(u"second"_s, {{u"main"_s, 1, 0, u"true"_s}})},
         {u"twogpus.json"_s, openPaiJob(u"two-gpus"_s, {{u"main"_s, 1, 2, u"true"_s}})}});
    QVERIFY(!repo.isEmpty());

    // Running jobs: the second waits for the first although the worker has free slots.
    const QString first = submit(cluster, dave, repo, u"first.json"_s);
    QVERIFY(!first.isEmpty());
    QVERIFY2(
        pollUntil(
            [&] { return cluster.job(dave, first).value(u"state"_s).toString() == "RUNNING"_L1; },
            20000),
        qPrintable(diagnostics(cluster, dave, first, names)));
    const QString second = submit(cluster, dave, repo, u"second.json"_s);
    QVERIFY(!second.isEmpty());
    const QString jobsReason =
        waitForReason(cluster, dave, second, u"user limit of 1 running job reached"_s);
    QVERIFY2(jobsReason.contains(u"user limit of 1 running job reached"_s),
             qPrintable(jobsReason + u'\n' + diagnostics(cluster, dave, second, names)));
    QCOMPARE(cluster.job(dave, first).value(u"state"_s).toString(), u"RUNNING"_s);
    const CliRun text = cluster.cli(dave, {u"progress"_s, u"--job_uuid="_s + second});
    QVERIFY2(text.out.contains(u"reason: user limit of 1 running job reached"_s),
             qPrintable(text.out + text.err));

    QCOMPARE(cluster.waitForJobEnd(dave, first, 20000), u"SUCCEEDED"_s);
    QCOMPARE(cluster.waitForJobEnd(dave, second, 20000), u"SUCCEEDED"_s);
    const QDateTime firstEnded = QDateTime::fromString(
        cluster.job(dave, first).value(u"finished_at"_s).toString(), Qt::ISODateWithMs);
    const QDateTime secondStarted = QDateTime::fromString(
        cluster.job(dave, second).value(u"started_at"_s).toString(), Qt::ISODateWithMs);
    QVERIFY(firstEnded.isValid() && secondStarted.isValid());
    QVERIFY2(secondStarted >= firstEnded,
             qPrintable(firstEnded.toString(Qt::ISODateWithMs) + u" > "_s
                        + secondStarted.toString(Qt::ISODateWithMs)));

    // GPUs: erin may hold 1; a job needing 2 waits on an idle 2-GPU worker until the limit goes.
    const QString gpus = submit(cluster, erin, repo, u"twogpus.json"_s);
    QVERIFY(!gpus.isEmpty());
    const QString gpuReason = waitForReason(cluster, erin, gpus, u"user limit of 1 GPUs reached"_s);
    QVERIFY2(gpuReason.contains(u"user limit of 1 GPUs reached"_s),
             qPrintable(gpuReason + u'\n' + diagnostics(cluster, erin, gpus, names)));
    QCOMPARE(countInState(tasksOf(cluster.job(erin, gpus)), u"WAITING"_s), 1);
    const CliRun lifted = cluster.setUserLimits(u"erin@example.org"_s, {u"--max-gpus"_s, u"-1"_s});
    QVERIFY2(lifted.exitCode == 0, qPrintable(lifted.out + lifted.err));
    const QString gpusState = cluster.waitForJobEnd(erin, gpus, 20000);
    QVERIFY2(gpusState == "SUCCEEDED"_L1,
             qPrintable(gpusState + u'\n' + diagnostics(cluster, erin, gpus, names)));
}

void TestE2eScheduling::pendingReasons()
{
    ClusterHarness cluster;
    const QStringList names{u"p1"_s};
    QVERIFY(startCluster(cluster, {}, {{names[0], {u"--gpus"_s, u"2"_s, u"--slots"_s, u"1"_s}}}));
    const QString user = u"frank"_s;
    QVERIFY(cluster.registerAndLogin(user, u"frank-password"_s));
    const QString repo = cluster.makeRepo(
        u"reasons"_s,
        {{u"big.json"_s, openPaiJob(u"four-gpus"_s, {{u"main"_s, 1, 4, u"true"_s}})},
         {u"hold.json"_s, openPaiJob(u"holds-the-slot"_s, {{u"main"_s, 1, 0, u"sleep 300"_s}})},
         {u"later.json"_s, openPaiJob(u"later"_s, {{u"main"_s, 1, 0, u"true"_s}})},
         {u"last.json"_s, openPaiJob(u"last"_s, {{u"main"_s, 1, 0, u"true"_s}})}});
    QVERIFY(!repo.isEmpty());

    // Bigger than any worker (submitted anyway): it says so, in the JSON and in ddlcli
    // progress's text.
    const QString big = submit(cluster, user, repo, u"big.json"_s, {u"--allow-unschedulable"_s});
    QVERIFY(!big.isEmpty());
    const QString expected = u"needs 4 GPUs on one worker; the largest worker has 2 GPUs"_s;
    const QString bigReason = waitForReason(cluster, user, big, expected);
    QVERIFY2(bigReason.startsWith(expected),
             qPrintable(bigReason + u'\n' + diagnostics(cluster, user, big, names)));
    const CliRun text = cluster.cli(user, {u"progress"_s, u"--job_uuid="_s + big});
    QVERIFY2(text.exitCode == 0 && text.out.contains(u"reason: "_s + expected),
             qPrintable(text.out + text.err));

    // The only slot is busy: later jobs wait behind the ones that wait before them.
    const QString hold = submit(cluster, user, repo, u"hold.json"_s);
    QVERIFY(!hold.isEmpty());
    QVERIFY2(
        pollUntil(
            [&] { return cluster.job(user, hold).value(u"state"_s).toString() == "RUNNING"_L1; },
            20000),
        qPrintable(diagnostics(cluster, user, hold, names)));
    const QString later = submit(cluster, user, repo, u"later.json"_s);
    QVERIFY(!later.isEmpty());
    const QString laterReason = waitForReason(cluster, user, later, u"behind"_s);
    QVERIFY2(laterReason.endsWith(u"behind 1 job in the queue"_s),
             qPrintable(laterReason + u'\n' + diagnostics(cluster, user, later, names)));
    const QString last = submit(cluster, user, repo, u"last.json"_s);
    QVERIFY(!last.isEmpty());
    const QString lastReason = waitForReason(cluster, user, last, u"behind 2"_s);
    QVERIFY2(lastReason.endsWith(u"behind 2 jobs in the queue"_s),
             qPrintable(lastReason + u'\n' + diagnostics(cluster, user, last, names)));
    qInfo("later jobs wait: \"%s\" and \"%s\"", qUtf8Printable(laterReason),
          qUtf8Printable(lastReason));
    const CliRun laterText = cluster.cli(user, {u"progress"_s, u"--job_uuid="_s + last});
    QVERIFY2(laterText.out.contains(u"reason: "_s) && laterText.out.contains(u"behind 2 jobs in the queue"_s),
             qPrintable(laterText.out + laterText.err));
    // What holds them is the busy slot, and the reason says so.
    QVERIFY2(laterReason.startsWith(u"needs 1 task slot at once (0 are free)"_s),
             qPrintable(laterReason));

    // When the slot frees, both run; the 4-GPU job still cannot and still says why.
    const CliRun cancel = cluster.cli(user, {u"cancel"_s, u"--job_uuid="_s + hold});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QCOMPARE(cluster.waitForJobEnd(user, later, 20000), u"SUCCEEDED"_s);
    QCOMPARE(cluster.waitForJobEnd(user, last, 20000), u"SUCCEEDED"_s);
    const QJsonObject stillBig = cluster.job(user, big);
    QCOMPARE(stillBig.value(u"state"_s).toString(), u"WAITING"_s);
    QVERIFY2(stillBig.value(u"reason"_s).toString().startsWith(expected),
             qPrintable(stillBig.value(u"reason"_s).toString()));
}

QTEST_GUILESS_MAIN(TestE2eScheduling)
#include "tst_e2e_scheduling.moc"
