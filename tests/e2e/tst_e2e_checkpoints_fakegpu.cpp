// Checkpoints (docs/checkpoints.md), end to end with the real ddl-server, ddl-worker and ddlcli as
// processes and the real iris example in real Python; the GPU is a fake nvidia-smi on the first
// worker's PATH (no GPU on this machine) whose list of computing processes the test writes. The
// iris example trains on worker A, saving a checkpoint each epoch into DDL_CHECKPOINT_DIR; A's
// owner comes back, the task is preempted, and the job resumes on worker B from the checkpoint
// A uploaded, ending with the accuracy of a run never interrupted. A task that fails mid-training
// is retried from its checkpoint too.
#include "clusterharness.h"
#include "polluntil.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr char User[] = "alice";
constexpr char WorkerA[] = "owners-pc";
constexpr char WorkerB[] = "spare-pc";

// The example's own script, with its dataset (none: it reads its ./data) and output folder.
constexpr char Train[] = "python main.py \"$PAI_DATA_DIR\" \"$PAI_OUTPUT_DIR\"";

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(content) == content.size();
}

// The test accuracy the example prints at its end; -1 when it did not.
double finalAccuracy(const QString &log)
{
    static const QRegularExpression line(u"final test accuracy: ([0-9.]+)"_s);
    const QRegularExpressionMatch match = line.match(log);
    return match.hasMatch() ? match.captured(1).toDouble() : -1;
}

// The epoch the example said it resumed from; -1 when it did not resume.
int resumedEpoch(const QString &log)
{
    static const QRegularExpression line(u"resumed from the checkpoint of epoch (\\d+) of 40"_s);
    const QRegularExpressionMatch match = line.match(log);
    return match.hasMatch() ? match.captured(1).toInt() : -1;
}

} // namespace

class TestE2eCheckpointsFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void uninterruptedRun();
    void preemptedJobResumesOnAnotherWorker();
    void failedTaskIsRetriedFromItsCheckpoint();

private:
    // Submits the iris example as an OpenPAI job whose one task runs command.
    QString submit(const QString &name, const QString &command, const QJsonObject &extra);
    QString logs(const QString &uuid);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    QString m_gpuApps; // what worker A's fake nvidia-smi lists as computing on its GPU
    double m_uninterruptedAccuracy = -1;
};

void TestE2eCheckpointsFakeGpu::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    const QString bin = m_cluster.path(u"fake-gpu-bin"_s);
    QVERIFY(QDir().mkpath(bin));
    m_gpuApps = m_cluster.path(u"gpu-apps.csv"_s);
    QVERIFY(writeFile(m_gpuApps, {}));
    const QByteArray script = "#!/bin/sh\ncase \"$*\" in\n*query-compute-apps*) cat '" +
                              m_gpuApps.toUtf8() +
                              "' ;;\n*) echo '0, Fake GPU, 16384 MiB' ;;\nesac\n";
    QVERIFY(writeFile(bin + u"/nvidia-smi"_s, script));
    QVERIFY(QFile::setPermissions(bin + u"/nvidia-smi"_s,
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                      QFileDevice::ExeOwner));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"PATH"_s, bin + u':' + environment.value(u"PATH"_s));
    // Checkpoints go up every second: the preemption below comes after one was saved.
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(WorkerA),
                                       {u"--only-when-idle"_s,
                                        u"--preempt-notice"_s,
                                        u"5"_s,
                                        u"--slots"_s,
                                        u"1"_s,
                                        u"--checkpoint-interval"_s,
                                        u"1"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s},
                                       environment));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(WorkerA))));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2eCheckpointsFakeGpu::submit(const QString &name,
                                          const QString &command,
                                          const QJsonObject &extra)
{
    const QString repo = m_cluster.makeExampleRepo(name);
    if (repo.isEmpty())
        return {};
    if (!writeFile(QDir(repo).filePath(u"job.json"_s),
                   openPaiJob(name, {{u"main"_s, 1, 0, command}}, extra)) ||
        !ClusterHarness::git(repo, {u"add"_s, u"job.json"_s}) ||
        !ClusterHarness::git(repo, {u"commit"_s, u"-qm"_s, u"job"_s}))
        return {};
    const CliRun submitted =
        m_cluster.cli(QString::fromLatin1(User), {u"submit"_s, u"--job_config=job.json"_s}, repo);
    const QString uuid = jobUuidOf(submitted.out);
    if (uuid.isEmpty())
        qWarning("submit: %s%s", qPrintable(submitted.out), qPrintable(submitted.err));
    return uuid;
}

QString TestE2eCheckpointsFakeGpu::logs(const QString &uuid)
{
    return m_cluster.jobLogs(QString::fromLatin1(User), uuid);
}

QString TestE2eCheckpointsFakeGpu::diagnostics(const QString &uuid)
{
    return m_cluster.jobDiagnostics(QString::fromLatin1(User), uuid, {QString::fromLatin1(WorkerA), QString::fromLatin1(WorkerB)});
}

// The band to compare with: the same example, never interrupted.
void TestE2eCheckpointsFakeGpu::uninterruptedRun()
{
    const QString uuid = submit(u"iris-straight"_s, QString::fromLatin1(Train), {});
    QVERIFY(!uuid.isEmpty());
    const QString state = m_cluster.waitForJobEnd(QString::fromLatin1(User), uuid, 90000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logs(uuid);
    QCOMPARE(resumedEpoch(log), -1); // a first attempt finds an empty DDL_CHECKPOINT_DIR
    m_uninterruptedAccuracy = finalAccuracy(log);
    QVERIFY2(m_uninterruptedAccuracy > 0.8, qPrintable(log));
    qInfo("uninterrupted: test accuracy %.3f", m_uninterruptedAccuracy);
}

void TestE2eCheckpointsFakeGpu::preemptedJobResumesOnAnotherWorker()
{
    QVERIFY(m_uninterruptedAccuracy > 0);
    const QString user = QString::fromLatin1(User);
    // Slowed to about 20 s of training, so that the owner comes back in the middle of it.
    const QString uuid = submit(
        u"iris-preempted"_s,
        QString::fromLatin1(Train),
        {{u"retryCount"_s, 0}, {u"jobEnvs"_s, QJsonObject{{u"IRIS_EPOCH_PAUSE_S"_s, u"0.5"_s}}}});
    QVERIFY(!uuid.isEmpty());

    // Training on A has saved a checkpoint, and A uploaded it.
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"checkpoint saved:"_s); }, 60000),
             qPrintable(diagnostics(uuid)));
    QJsonObject job = m_cluster.job(user, uuid);
    QCOMPARE(job.value(u"state"_s).toString(), u"RUNNING"_s);

    // A's owner starts a program on the GPU: the task is preempted, and A is busy from now on.
    QVERIFY(writeFile(m_gpuApps, QByteArray::number(QCoreApplication::applicationPid()) + '\n'));
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"preemptions"_s).toInt() >= 1;
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    // What the first attempt saved is the job's, for users to see.
    const QJsonArray checkpoints = job.value(u"checkpoints"_s).toArray();
    QVERIFY2(checkpoints.size() == 1, qPrintable(diagnostics(uuid)));
    const QJsonObject checkpoint = checkpoints.first().toObject();
    QCOMPARE(checkpoint.value(u"role"_s).toString(), u"main"_s);
    QCOMPARE(checkpoint.value(u"attempt"_s).toInt(), 1);
    QVERIFY(checkpoint.value(u"size"_s).toInteger() > 0);

    // Another worker comes: the job goes on there from A's checkpoint, and succeeds.
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(WorkerB),
                                       {u"--slots"_s,
                                        u"1"_s,
                                        u"--checkpoint-interval"_s,
                                        u"1"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s}));
    const QString state = m_cluster.waitForJobEnd(user, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logs(uuid);
    const int epoch = resumedEpoch(log);
    QVERIFY2(epoch > 0 && epoch < 40, qPrintable(diagnostics(uuid)));
    QVERIFY2(log.contains(u"DDL_CHECKPOINT_DIR holds the checkpoint of attempt 1"_s),
             qPrintable(diagnostics(uuid)));
    job = m_cluster.job(user, uuid);
    QString lastWorker;
    int lastAttempt = 0;
    for (const QJsonValue &value : job.value(u"tasks"_s).toArray()) {
        const QJsonObject task = value.toObject();
        if (task.value(u"attempt"_s).toInt() > lastAttempt) {
            lastAttempt = task.value(u"attempt"_s).toInt();
            lastWorker = task.value(u"worker"_s).toString();
        }
    }
    QCOMPARE(lastWorker, QString::fromLatin1(WorkerB));
    // The same final accuracy as the run never interrupted (one flower of 30 either way at most).
    const double accuracy = finalAccuracy(log);
    QVERIFY2(qAbs(accuracy - m_uninterruptedAccuracy) < 0.034,
             qPrintable(u"%1 against %2\n"_s.arg(accuracy).arg(m_uninterruptedAccuracy) +
                        diagnostics(uuid)));
    // ddlcli progress shows where the job would go on from.
    const CliRun progress = m_cluster.cli(user, {u"progress"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(progress.out.contains(u"checkpoint: main[0] from attempt"_s),
             qPrintable(progress.out));
    qInfo("resumed on %s from epoch %d; test accuracy %.3f", WorkerB, epoch, accuracy);
}

void TestE2eCheckpointsFakeGpu::failedTaskIsRetriedFromItsCheckpoint()
{
    // A is still busy: this runs on B. The first attempt is killed mid-training and fails.
    const QString command =
        u"if [ \"$DDL_TASK_ATTEMPT\" = 1 ]; then timeout -s KILL 5 %1; echo crashed; exit 1; "
        "fi; %1"_s.arg(QString::fromLatin1(Train));
    const QString uuid = submit(
        u"iris-retried"_s,
        command,
        {{u"retryCount"_s, 1}, {u"jobEnvs"_s, QJsonObject{{u"IRIS_EPOCH_PAUSE_S"_s, u"0.3"_s}}}});
    QVERIFY(!uuid.isEmpty());
    const QString user = QString::fromLatin1(User);
    const QString state = m_cluster.waitForJobEnd(user, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonObject job = m_cluster.job(user, uuid);
    QCOMPARE(job.value(u"attempt"_s).toInt(), 2);
    QCOMPARE(job.value(u"preemptions"_s).toInt(), 0);
    const QString log = logs(uuid);
    QVERIFY2(log.contains(u"crashed"_s), qPrintable(diagnostics(uuid)));
    const int epoch = resumedEpoch(log);
    QVERIFY2(epoch > 0 && epoch < 40, qPrintable(diagnostics(uuid)));
    const double accuracy = finalAccuracy(log);
    QVERIFY2(qAbs(accuracy - m_uninterruptedAccuracy) < 0.034,
             qPrintable(u"%1 against %2\n"_s.arg(accuracy).arg(m_uninterruptedAccuracy) +
                        diagnostics(uuid)));
    qInfo("retried from epoch %d; test accuracy %.3f", epoch, accuracy);
}

QTEST_GUILESS_MAIN(TestE2eCheckpointsFakeGpu)
#include "tst_e2e_checkpoints_fakegpu.moc"
