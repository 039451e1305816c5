// The Slurm backend end to end: a real ddl-server, a real `ddl-worker --backend slurm
// --partition debug`, and a real single-node Slurm 22.05 (munged, slurmctld, slurmd started by
// the test in its temporary folder through tests/support/slurmlocal.py). The node has 2 CPUs,
// 2048 MB and 2 GPUs of GRES with stand-in device files (no real GPU is here: Slurm counts and
// allocates them, nothing binds a device), so the GPU parts check the flags and the counts, not
// CUDA. Needs root and the packages slurm-wlm and munge; skipped with the reason otherwise (and
// failed in CI, which installs both).
#include "clusterharness.h"
#include "localslurm.h"
#include "polluntil.h"
#include "prerequisite.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <memory>

using namespace Qt::Literals::StringLiterals;

namespace {

const QString User = u"sam"_s;
const QString Partition = u"debug"_s;

// The ids of the Slurm jobs squeue lists in any state (it keeps ended ones for MinJobAge).
QString squeueState(const LocalSlurm &slurm, const QString &jobId)
{
    const LocalSlurm::Run run =
        slurm.run(u"squeue"_s, {u"--json"_s, u"--states=all"_s, u"--jobs="_s + jobId});
    if (run.exitCode != 0)
        return run.err.contains(u"Invalid job id"_s) ? u"GONE"_s : u"ERROR: "_s + run.err;
    for (const QJsonValue &job :
         QJsonDocument::fromJson(run.out.toUtf8()).object().value(u"jobs"_s).toArray()) {
        if (QString::number(job.toObject().value(u"job_id"_s).toInteger()) == jobId)
            return job.toObject().value(u"job_state"_s).toString();
    }
    return u"GONE"_s;
}

} // namespace

class TestE2eSlurm : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void capacityComesFromSinfo();
    void oneTaskJobSucceedsWithLogAndOutput();
    void failingStepFailsTheJobWithItsExitCode();
    void gangRunsAsOneAllocationOfTwoSteps();
    void cancelReachesScancel();
    void jobWaitingInSlurmShowsSlurmsReason();

private:
    QString submit(const QString &name, const QByteArray &jobJson, CliRun *run = nullptr);
    QString logsOf(const QString &uuid);
    QString diagnostics(const QString &uuid);

    std::unique_ptr<ClusterHarness> m_cluster;
    std::unique_ptr<LocalSlurm> m_slurm;
};

void TestE2eSlurm::initTestCase()
{
    m_cluster = std::make_unique<ClusterHarness>();
    LocalSlurm::Options options;
    options.cpus = 2;
    options.memoryMb = 2048;
    options.gpus = 2;
    options.partition = Partition;
    m_slurm = std::make_unique<LocalSlurm>(options);
    const bool started = m_slurm->start();
    DDL_REQUIRE_PREREQUISITE(started || !m_slurm->unavailable(),
                             u"Slurm cannot run here: "_s + m_slurm->why());
    QVERIFY2(started, qPrintable(u"the local Slurm did not start: "_s + m_slurm->why()));

    QVERIFY2(m_cluster->startServer(), qPrintable(m_cluster->serverLog()));
    QVERIFY(m_cluster->startNamedWorker(u"slurm"_s,
                                        {u"--backend"_s, u"slurm"_s, u"--partition"_s, Partition,
                                         u"--no-sandbox"_s},
                                        m_slurm->environment()));
    if (!pollUntil([&] { return m_cluster->serverLog().contains(u"enrolled from"_s); }, 30000)) {
        qWarning("worker:\n%s\nserver:\n%s",
                 qUtf8Printable(m_cluster->workerLog(u"slurm"_s)),
                 qUtf8Printable(m_cluster->serverLog().right(3000)));
        QFAIL("the Slurm worker did not enroll");
    }
    QVERIFY(m_cluster->registerAndLogin(User, u"sam-password"_s));
}

void TestE2eSlurm::cleanupTestCase()
{
    if (m_cluster)
        m_cluster->killNamedWorker(u"slurm"_s);
    if (m_slurm)
        m_slurm->stop();
}

QString TestE2eSlurm::submit(const QString &name, const QByteArray &jobJson, CliRun *run)
{
    const QString repo = m_cluster->makeRepo(
        name,
        {{u"job.json"_s, jobJson},
         {u"peer.py"_s,
          // Task 0 listens on its own host:port of the host list, task 1 connects to it
          // there: the host list names where Slurm put each task.
          "import os, socket, time\n"
          "hosts = os.environ['PAI_TASK_ROLE_0_HOST_LIST'].split(',')\n"
          "me = int(os.environ['PAI_TASK_ROLE_INDEX'])\n"
          "print('slurm job=%s step=%s hosts=%s' % (os.environ.get('SLURM_JOB_ID'),\n"
          "      os.environ.get('SLURM_STEP_ID'), ','.join(hosts)), flush=True)\n"
          "host, port = hosts[0].rsplit(':', 1)\n"
          "if me == 0:\n"
          "    server = socket.create_server(('', int(port)))\n"
          "    server.settimeout(60)\n"
          "    conn, _ = server.accept()\n"
          "    print('task 0 got: ' + conn.recv(100).decode(), flush=True)\n"
          "else:\n"
          "    deadline = time.time() + 60\n"
          "    while True:\n"
          "        try:\n"
          "            c = socket.create_connection((host, int(port)), timeout=5)\n"
          "            break\n"
          "        except OSError:\n"
          "            if time.time() > deadline:\n"
          "                raise\n"
          "            time.sleep(0.2)\n"
          "    c.sendall(b'hello from task 1')\n"
          "    print('task 1 sent', flush=True)\n"}});
    if (repo.isEmpty())
        return {};
    const CliRun done = m_cluster->cli(User, {u"submit"_s, u"--job_config=job.json"_s}, repo);
    if (run)
        *run = done;
    const QString uuid = jobUuidOf(done.out);
    if (uuid.isEmpty() && !run)
        qWarning("submit of %s failed: %s %s",
                 qUtf8Printable(name),
                 qUtf8Printable(done.out),
                 qUtf8Printable(done.err));
    return uuid;
}

QString TestE2eSlurm::logsOf(const QString &uuid)
{
    return m_cluster->cli(User, {u"logs"_s, u"--job_uuid="_s + uuid}).out;
}

QString TestE2eSlurm::diagnostics(const QString &uuid)
{
    return QString::fromUtf8(QJsonDocument(m_cluster->job(User, uuid)).toJson()) +
           u"\n--- logs ---\n"_s + logsOf(uuid) + u"\n--- worker ---\n"_s +
           m_cluster->workerLog(u"slurm"_s).right(3000) + u"\n--- squeue ---\n"_s +
           m_slurm->run(u"squeue"_s, {}).out;
}

void TestE2eSlurm::capacityComesFromSinfo()
{
    // The partition has 2 GPUs (sinfo's GRES) and 2 CPUs: the server knows it from the worker,
    // and refuses at submit what can never run there.
    CliRun tooBig;
    const QString refused = submit(
        u"three-gpus"_s, openPaiJob(u"three-gpus"_s, {{u"main"_s, 1, 3, u"true"_s}}), &tooBig);
    QVERIFY2(refused.isEmpty(), qPrintable(tooBig.out));
    QVERIFY2(tooBig.err.contains(u"3 GPUs"_s) && tooBig.err.contains(u"2 GPUs"_s),
             qPrintable(tooBig.err));
    CliRun tooWide;
    QVERIFY(submit(u"three-cpus"_s,
                   openPaiJob(u"three-cpus"_s, {{u"main"_s, 3, 0, u"true"_s}}),
                   &tooWide)
                .isEmpty());
    // One slot per CPU of the partition.
    QVERIFY2(tooWide.err.contains(u"3 task slots"_s) && tooWide.err.contains(u"2 in all"_s),
             qPrintable(tooWide.err));
}

void TestE2eSlurm::oneTaskJobSucceedsWithLogAndOutput()
{
    // One task with one GPU: sbatch --gres=gpu:1, the step sees the GPU Slurm gave it.
    const QString uuid = submit(
        u"one"_s,
        openPaiJob(u"one"_s,
                   {{u"main"_s,
                     1,
                     1,
                     u"echo \"hello from Slurm job $SLURM_JOB_ID gpus=$SLURM_GPUS_ON_NODE\"; "
                     "echo 'to stderr' >&2; "
                     "echo \"trained in $SLURM_JOB_ID\" > \"$PAI_OUTPUT_DIR/model.txt\""_s}}));
    QVERIFY(!uuid.isEmpty());
    QCOMPARE(m_cluster->waitForJobEnd(User, uuid, 120000), u"SUCCEEDED"_s);
    const QString logs = logsOf(uuid);
    static const QRegularExpression hello(u"hello from Slurm job (\\d+) gpus=1"_s);
    const QRegularExpressionMatch match = hello.match(logs);
    QVERIFY2(match.hasMatch(), qPrintable(diagnostics(uuid)));
    QVERIFY2(logs.contains(u"to stderr"_s), qPrintable(logs));

    const QString dest = m_cluster->path(u"one-output"_s);
    const CliRun download =
        m_cluster->cli(User, {u"download"_s, u"--job_uuid="_s + uuid, u"--dest="_s + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    QFile model(dest + u"/model.txt"_s);
    QVERIFY(model.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(model.readAll().trimmed()), u"trained in "_s + match.captured(1));
}

void TestE2eSlurm::failingStepFailsTheJobWithItsExitCode()
{
    const QString uuid = submit(
        u"fails"_s,
        openPaiJob(u"fails"_s, {{u"main"_s, 1, 0, u"echo 'about to fail' >&2; exit 3"_s}}));
    QVERIFY(!uuid.isEmpty());
    QCOMPARE(m_cluster->waitForJobEnd(User, uuid, 120000), u"FAILED"_s);
    const QJsonArray tasks = m_cluster->job(User, uuid).value(u"tasks"_s).toArray();
    QCOMPARE(tasks.size(), 1);
    QCOMPARE(tasks.first().toObject().value(u"exit_code"_s).toInt(-1), 3);
    QVERIFY(logsOf(uuid).contains(u"about to fail"_s));
}

void TestE2eSlurm::gangRunsAsOneAllocationOfTwoSteps()
{
    const QString uuid =
        submit(u"gang"_s, openPaiJob(u"gang"_s, {{u"peer"_s, 2, 0, u"python3 peer.py"_s}}));
    QVERIFY(!uuid.isEmpty());
    QCOMPARE(m_cluster->waitForJobEnd(User, uuid, 120000), u"SUCCEEDED"_s);
    const QString logs = logsOf(uuid);
    static const QRegularExpression line(u"slurm job=(\\d+) step=(\\d+) hosts=(\\S+)"_s);
    QSet<QString> jobs, steps, hostLists;
    for (auto it = line.globalMatch(logs); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        jobs << match.captured(1);
        steps << match.captured(2);
        hostLists << match.captured(3);
    }
    QVERIFY2(jobs.size() == 1 && steps.size() == 2, qPrintable(diagnostics(uuid)));
    QCOMPARE(hostLists.size(), 1); // both see the same list
    const QStringList hosts = hostLists.values().first().split(u',');
    QCOMPARE(hosts.size(), 2);
    for (const QString &host : hosts)
        QVERIFY2(host.startsWith(u"localhost:"_s), qPrintable(host)); // the allocation's node
    QVERIFY2(logs.contains(u"task 0 got: hello from task 1"_s), qPrintable(logs));
}

void TestE2eSlurm::cancelReachesScancel()
{
    const QString uuid = submit(
        u"sleeper"_s,
        openPaiJob(u"sleeper"_s,
                   {{u"main"_s, 1, 0, u"echo \"slurm-job=$SLURM_JOB_ID\"; sleep 300.0517"_s}}));
    QVERIFY(!uuid.isEmpty());
    static const QRegularExpression started(u"slurm-job=(\\d+)"_s);
    QString jobId;
    QVERIFY2(pollUntil(
                 [&] {
                     jobId = started.match(logsOf(uuid)).captured(1);
                     return !jobId.isEmpty();
                 },
                 60000,
                 {},
                 300),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(squeueState(*m_slurm, jobId), u"RUNNING"_s);
    const CliRun cancel = m_cluster->cli(User, {u"cancel"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QString state;
    QVERIFY2(pollUntil(
                 [&] {
                     state = squeueState(*m_slurm, jobId);
                     return state == u"CANCELLED" || state == u"GONE";
                 },
                 15000,
                 {},
                 250),
             qPrintable(u"Slurm job %1 is %2\n"_s.arg(jobId, state) + diagnostics(uuid)));
    // Slurm ended the task's processes (an odd duration, so that no other process matches).
    QVERIFY(pollUntil(
        [] {
            return QProcess::execute(u"pgrep"_s, {u"-f"_s, u"^sleep 300.0517$"_s}) == 1;
        },
        15000));
    QCOMPARE(m_cluster->waitForJobEnd(User, uuid, 30000), u"STOPPED"_s);
    // The task's own end comes from the worker once Slurm says the job is gone.
    QVERIFY2(pollUntil(
                 [&] {
                     const QJsonArray tasks =
                         m_cluster->job(User, uuid).value(u"tasks"_s).toArray();
                     return !tasks.isEmpty() &&
                            tasks.first().toObject().value(u"state"_s).toString() == u"STOPPED";
                 },
                 15000,
                 {},
                 250),
             qPrintable(diagnostics(uuid)));
}

void TestE2eSlurm::jobWaitingInSlurmShowsSlurmsReason()
{
    // Another user of the lab's cluster takes both CPUs with a job of their own.
    const LocalSlurm::Run blocker = m_slurm->run(u"sbatch"_s,
                                                 {u"--parsable"_s,
                                                  u"--ntasks=2"_s,
                                                  u"--mem-per-cpu=100"_s,
                                                  u"--output=/dev/null"_s,
                                                  u"--wrap=sleep 300"_s});
    QVERIFY2(blocker.exitCode == 0, qPrintable(blocker.err));
    const QString blockerId = blocker.out.trimmed().section(u';', 0, 0);
    QVERIFY(pollUntil([&] { return squeueState(*m_slurm, blockerId) == u"RUNNING"; }, 30000));

    const QString uuid = submit(
        u"queued"_s, openPaiJob(u"queued"_s, {{u"main"_s, 1, 0, u"echo ran after the other"_s}}));
    QVERIFY(!uuid.isEmpty());
    const QString dropped = submit(
        u"dropped"_s, openPaiJob(u"dropped"_s, {{u"main"_s, 1, 0, u"echo dropped-$((6 * 7))"_s}}));
    QVERIFY(!dropped.isEmpty());
    // The first waits for the CPUs, the second for them or behind the first (Priority).
    static const QRegularExpression pendingJob(
        u"^Slurm job (\\d+) is pending: (Resources|Priority) \\("_s);
    QHash<QString, QString> slurmJobOf;
    for (const QString &waiting : {uuid, dropped}) {
        QJsonObject job;
        QVERIFY2(pollUntil(
                     [&] {
                         job = m_cluster->job(User, waiting);
                         return pendingJob.match(job.value(u"reason"_s).toString()).hasMatch();
                     },
                     30000,
                     {},
                     300),
                 qPrintable(diagnostics(waiting)));
        QCOMPARE(job.value(u"state"_s).toString(), u"WAITING"_s);
        slurmJobOf[waiting] = pendingJob.match(job.value(u"reason"_s).toString()).captured(1);
        QCOMPARE(squeueState(*m_slurm, slurmJobOf[waiting]), u"PENDING"_s);
    }
    QVERIFY(slurmJobOf[uuid] != slurmJobOf[dropped]);

    // Cancelled while Slurm holds it: its Slurm job goes too, and it never ran.
    const CliRun cancel = m_cluster->cli(User, {u"cancel"_s, u"--job_uuid="_s + dropped});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QString state;
    QVERIFY2(pollUntil(
                 [&] {
                     state = squeueState(*m_slurm, slurmJobOf[dropped]);
                     return state == u"CANCELLED" || state == u"GONE";
                 },
                 15000,
                 {},
                 250),
             qPrintable(state + diagnostics(dropped)));
    QCOMPARE(m_cluster->waitForJobEnd(User, dropped, 30000), u"STOPPED"_s);

    // The other job ends: ours runs.
    QCOMPARE(m_slurm->run(u"scancel"_s, {blockerId}).exitCode, 0);
    QCOMPARE(m_cluster->waitForJobEnd(User, uuid, 120000), u"SUCCEEDED"_s);
    QVERIFY(logsOf(uuid).contains(u"ran after the other"_s));
    // (The log holds the command as the worker tells it, not what it would print.)
    QVERIFY(!logsOf(dropped).contains(u"dropped-42"_s));
}

QTEST_GUILESS_MAIN(TestE2eSlurm)
#include "tst_e2e_slurm.moc"
