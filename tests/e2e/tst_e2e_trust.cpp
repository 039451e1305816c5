// Worker trust with real processes (docs/trust.md): ddl-server started with --canaries, real
// ddl-workers, real Python. An honest worker passes its canary before it takes a user's job; a
// cheating worker, whose Python interpreter (--python) is a wrapper that overwrites every output
// file after the real python3 wrote it, fails its canary, is quarantined and gets no user's job.
// The admin's `ddl-server workers list|quarantine|release` act on the running server, and a job's
// minWorkerTrust keeps it off workers trusted less. A worker that never finishes its canary is
// quarantined once the canary deadline passes.
#include "clusterharness.h"
#include "polluntil.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::Literals::StringLiterals;

namespace {

// One row of `ddl-server workers list`: ID NAME STATE TRUST "TRUST STATE" REASON.
struct AdminRow
{
    QString id;
    QString state;
    int trust = -1;
    QString trustState;
    QString reason;
};

} // namespace

class TestE2eTrust : public QObject
{
    Q_OBJECT

private slots:
    void honestWorkerPassesItsCanaryThenRunsUserJobs();
    void canaryFails_cheatingworker();
    void canaryPastItsDeadlineFails_hangingworker();

private:
    bool startCluster(ClusterHarness &cluster, const QString &worker, const QStringList &args);
    // `ddl-server workers ARGS` on the cluster's data dir; its output.
    QString admin(ClusterHarness &cluster, const QStringList &args, int *exitCode = nullptr);
    AdminRow adminRow(ClusterHarness &cluster, const QString &worker);
    QString submit(ClusterHarness &cluster, const QString &repo, const QString &jobFile);
    QString waitForReason(ClusterHarness &cluster, const QString &uuid, const QString &needle);
    QString diagnostics(ClusterHarness &cluster, const QString &uuid, const QString &worker);
};

static const QString User = u"tess"_s;

bool TestE2eTrust::startCluster(ClusterHarness &cluster,
                                const QString &worker,
                                const QStringList &args)
{
    if (!cluster.startServer({u"--canaries"_s, u"--worker-timeout"_s, u"600"_s})) {
        qWarning("server did not start: %s", qUtf8Printable(cluster.serverLog()));
        return false;
    }
    if (!cluster.registerAndLogin(User, u"tess-password"_s))
        return false;
    return cluster.startNamedWorker(worker, args);
}

QString TestE2eTrust::admin(ClusterHarness &cluster, const QStringList &args, int *exitCode)
{
    return ServerProcess::runCommand(QStringList{u"workers"_s} + args +
                                         QStringList{u"--data-dir"_s, cluster.path(u"server"_s)},
                                     exitCode);
}

AdminRow TestE2eTrust::adminRow(ClusterHarness &cluster, const QString &worker)
{
    for (const QString &line : admin(cluster, {u"list"_s}).split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList cells = line.split(u' ', Qt::SkipEmptyParts);
        if (cells.size() >= 5 && cells.at(1) == worker) {
            return AdminRow{cells.at(0),
                            cells.at(2),
                            cells.at(3).toInt(),
                            cells.at(4),
                            QStringList(cells.mid(5)).join(u' ')};
        }
    }
    return {};
}

QString TestE2eTrust::submit(ClusterHarness &cluster, const QString &repo, const QString &jobFile)
{
    const CliRun run = cluster.cli(User, {u"submit"_s, u"--job_config="_s + jobFile}, repo);
    const QString uuid = jobUuidOf(run.out);
    if (uuid.isEmpty())
        qWarning("submit of %s failed: %s %s",
                 qUtf8Printable(jobFile),
                 qUtf8Printable(run.out),
                 qUtf8Printable(run.err));
    return uuid;
}

QString
TestE2eTrust::waitForReason(ClusterHarness &cluster, const QString &uuid, const QString &needle)
{
    QString reason;
    pollUntil(
        [&] {
            reason = cluster.job(User, uuid).value(u"reason"_s).toString();
            return reason.contains(needle);
        },
        20000);
    return reason;
}

QString
TestE2eTrust::diagnostics(ClusterHarness &cluster, const QString &uuid, const QString &worker)
{
    return QString::fromUtf8(QJsonDocument(cluster.job(User, uuid)).toJson()) + u"\n--- "_s +
           worker + u" ---\n"_s + cluster.workerLog(worker).right(3000) + u"\n--- server ---\n"_s +
           cluster.serverLog().right(4000);
}

void TestE2eTrust::honestWorkerPassesItsCanaryThenRunsUserJobs()
{
    ClusterHarness cluster;
    const QString worker = u"honest"_s;
    QVERIFY(cluster.startServer({u"--canaries"_s, u"--worker-timeout"_s, u"600"_s}));
    QVERIFY(cluster.registerAndLogin(User, u"tess-password"_s));
    const QString repo = cluster.makeRepo(
        u"trust"_s,
        {{u"first.json"_s, openPaiJob(u"first"_s, {{u"main"_s, 1, 0, u"echo first"_s}})},
         {u"second.json"_s, openPaiJob(u"second"_s, {{u"main"_s, 1, 0, u"echo second"_s}})},
         {u"picky.json"_s,
          openPaiJob(
              u"picky"_s, {{u"main"_s, 1, 0, u"echo picky"_s}}, {{u"minWorkerTrust"_s, 90}})}});
    QVERIFY(!repo.isEmpty());

    // Submitted before any worker: it waits, and goes to the worker only after its canary.
    const QString first = submit(cluster, repo, u"first.json"_s);
    QVERIFY(!first.isEmpty());
    QVERIFY(cluster.startNamedWorker(worker, {u"--slots"_s, u"2"_s}));
    QCOMPARE(cluster.waitForJobEnd(User, first, 90000), u"SUCCEEDED"_s);
    QVERIFY2(cluster.serverLog().contains(u"passed"_s), qPrintable(cluster.serverLog()));
    const AdminRow verified = adminRow(cluster, worker);
    QCOMPARE(verified.trustState, u"verified"_s);
    // 10 for one canary passed, 30 for its tasks (none failed), nothing yet for uptime.
    QCOMPARE(verified.trust, 40);
    // The user sees the trust of the worker that ran the task, and never the canary job.
    const QJsonObject firstJob = cluster.job(User, first);
    const QJsonObject task = firstJob.value(u"tasks"_s).toArray().at(0).toObject();
    QCOMPARE(task.value(u"worker"_s).toString(), worker);
    QCOMPARE(task.value(u"worker_trust"_s).toInt(-1), 40);
    const CliRun list = cluster.cli(User, {u"list"_s});
    QVERIFY2(!list.out.contains(u"canary"_s), qPrintable(list.out));
    const CliRun progress = cluster.cli(User, {u"progress"_s, u"--job_uuid="_s + first});
    QVERIFY2(progress.out.contains(u"TRUST"_s), qPrintable(progress.out));
    // The canary ran before the user's job on that worker.
    const QString log = cluster.workerLog(worker);
    // Its name says nothing of a canary (docs/trust.md).
    const QRegularExpression canaryName(u"run-[0-9a-f]{8}"_s);
    QVERIFY2(log.indexOf(canaryName) >= 0 && log.indexOf(canaryName) < log.indexOf(u"first"_s),
             qPrintable(log));
    QVERIFY2(!log.contains(u"canary"_s, Qt::CaseInsensitive), qPrintable(log));

    // minWorkerTrust 90: the only worker has 40, so the job waits and says so.
    const QString picky = submit(cluster, repo, u"picky.json"_s);
    QVERIFY(!picky.isEmpty());
    const QString pickyReason = waitForReason(cluster, picky, u"trust >= 90"_s);
    QVERIFY2(pickyReason.contains(u"needs a worker with trust >= 90; no online worker is one (the "
                                  "most trusted online worker has trust 40"_s),
             qPrintable(pickyReason));
    QVERIFY(cluster.cli(User, {u"cancel"_s, u"--job_uuid="_s + picky}).exitCode == 0);

    // The admin quarantines it on the running server: the next job waits, saying why.
    int code = -1;
    const QString quarantined =
        admin(cluster, {u"quarantine"_s, verified.id, u"--reason"_s, u"owner asked"_s}, &code);
    QCOMPARE(code, 0);
    QVERIFY2(quarantined.contains(u"quarantined (owner asked)"_s), qPrintable(quarantined));
    const AdminRow held = adminRow(cluster, worker);
    QCOMPARE(held.trustState, u"quarantined"_s);
    QCOMPARE(held.trust, 0);
    QCOMPARE(held.reason, u"owner asked"_s);
    const QString second = submit(cluster, repo, u"second.json"_s);
    QVERIFY(!second.isEmpty());
    const QString reason = waitForReason(cluster, second, u"quarantined"_s);
    QVERIFY2(reason.contains(u"no online worker takes tasks now: 1 is quarantined"_s),
             qPrintable(reason + u'\n' + diagnostics(cluster, second, worker)));
    QCOMPARE(cluster.job(User, second).value(u"state"_s).toString(), u"WAITING"_s);

    // Released, it is unverified: a second canary, then the job.
    QVERIFY(admin(cluster, {u"release"_s, verified.id}, &code).contains(u"released"_s));
    QCOMPARE(cluster.waitForJobEnd(User, second, 90000), u"SUCCEEDED"_s);
    const AdminRow again = adminRow(cluster, worker);
    QCOMPARE(again.trustState, u"verified"_s);
    QCOMPARE(again.trust, 50); // two canaries passed

    // Bad admin input is refused with the way out.
    QString errors;
    ServerProcess::runCommand(
        {u"workers"_s, u"release"_s, u"999"_s, u"--data-dir"_s, cluster.path(u"server"_s)},
        &code,
        &errors);
    QCOMPARE(code, 1);
    QVERIFY2(errors.contains(u"no worker 999 on this server; see the ids with ddl-server workers "
                             "list"_s),
             qPrintable(errors));
}

void TestE2eTrust::canaryFails_cheatingworker()
{
    // The cheat: the worker's Python runs the task, then replaces what it wrote.
    ClusterHarness cluster;
    const QString wrapper = cluster.path(u"cheating-python3"_s);
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(
        "#!/bin/sh\n"
        "/usr/bin/python3 \"$@\"\n"
        "status=$?\n"
        "# DDL's runner gets: -u RUNNER CODE DATASET OUTPUT\n"
        "if [ -d \"$5\" ]; then for f in \"$5\"/*; do [ -f \"$f\" ] && echo forged > \"$f\"; "
        "done; fi\n"
        "exit $status\n");
    script.close();
    QVERIFY(script.setPermissions(script.permissions() | QFile::ExeOwner | QFile::ExeGroup |
                                  QFile::ExeOther));
    const QString worker = u"cheater"_s;
    // Without the sandbox, so that the wrapper (in the test's folder) is the interpreter.
    QVERIFY(startCluster(cluster, worker, {u"--python"_s, wrapper, u"--no-sandbox"_s}));
    const QString repo = cluster.makeRepo(
        u"cheat"_s, {{u"job.json"_s, openPaiJob(u"victim"_s, {{u"main"_s, 1, 0, u"echo"_s}})}});
    QVERIFY(!repo.isEmpty());

    QVERIFY2(
        pollUntil([&] { return adminRow(cluster, worker).trustState == u"quarantined"_s; }, 60000),
        qPrintable(cluster.serverLog() + cluster.workerLog(worker)));
    const AdminRow row = adminRow(cluster, worker);
    QCOMPARE(row.trust, 0);
    QVERIFY2(row.reason.contains(u"failed canary job"_s) && row.reason.contains(u"result.txt"_s),
             qPrintable(row.reason));
    QVERIFY2(cluster.serverLog().contains(u"quarantined: failed canary job"_s),
             qPrintable(cluster.serverLog()));

    // A user's job never goes there.
    const QString victim = submit(cluster, repo, u"job.json"_s);
    QVERIFY(!victim.isEmpty());
    const QString reason = waitForReason(cluster, victim, u"quarantined"_s);
    QVERIFY2(reason.contains(u"no online worker takes tasks now: 1 is quarantined"_s),
             qPrintable(reason + u'\n' + diagnostics(cluster, victim, worker)));
    QTest::qWait(4000); // two more scheduling passes
    const QJsonObject job = cluster.job(User, victim);
    QCOMPARE(job.value(u"state"_s).toString(), u"WAITING"_s);
    QVERIFY(job.value(u"tasks"_s).toArray().at(0).toObject().value(u"worker"_s).isNull());
    QVERIFY2(!cluster.workerLog(worker).contains(u"victim"_s),
             qPrintable(cluster.workerLog(worker)));
}

void TestE2eTrust::canaryPastItsDeadlineFails_hangingworker()
{
    // The dodge: the worker's Python never returns, so the canary stays RUNNING and gets no
    // verdict; the server's canary deadline (shortened to 6 s here) fails it.
    ClusterHarness cluster;
    const QString wrapper = cluster.path(u"hanging-python3"_s);
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 600\n");
    script.close();
    QVERIFY(script.setPermissions(script.permissions() | QFile::ExeOwner | QFile::ExeGroup |
                                  QFile::ExeOther));
    const QString worker = u"hanger"_s;
    QVERIFY(cluster.startServer({u"--canaries"_s,
                                 u"--worker-timeout"_s,
                                 u"600"_s,
                                 u"--canary-deadline-minutes"_s,
                                 u"0.1"_s}));
    QVERIFY(cluster.registerAndLogin(User, u"tess-password"_s));
    QVERIFY(cluster.startNamedWorker(worker, {u"--python"_s, wrapper, u"--no-sandbox"_s}));

    QVERIFY2(
        pollUntil([&] { return adminRow(cluster, worker).trustState == u"quarantined"_s; }, 60000),
        qPrintable(cluster.serverLog() + cluster.workerLog(worker)));
    const AdminRow row = adminRow(cluster, worker);
    QVERIFY2(row.reason.contains(u"failed canary job"_s) &&
                 row.reason.contains(u"not done within the canary deadline of 6 s"_s),
             qPrintable(row.reason));
    QVERIFY2(cluster.serverLog().contains(u"quarantined: failed canary job"_s),
             qPrintable(cluster.serverLog()));
}

QTEST_GUILESS_MAIN(TestE2eTrust)
#include "tst_e2e_trust.moc"
