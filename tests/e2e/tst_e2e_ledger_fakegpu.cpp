// The contribution ledger end to end (docs/owners.md), on a worker whose only GPU is a fake
// nvidia-smi on its PATH (no GPU on this machine): the real ddl-server, ddl-worker and ddlcli as
// processes. The worker is enrolled with a token made for its owner; another user's DDL job runs
// on its GPU with a dataset; then the owner reads GPU and CPU time, the task and job, and bytes
// beyond the dataset's size; the job's user cannot; a resent task end counts once; and
// `ddl-worker report` prints the same numbers from the worker's own config.
#include "clusterharness.h"
#include "fakenvidiasmi.h"
#include "polluntil.h"
#include "serverprocess.h"

#include "api/apiclient.h"
#include "wire/contributionledger.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl;

namespace {

constexpr qint64 DatasetBytes = 300 * 1000;

// Busy for about 2.5 s, then a small model.
constexpr char MainPy[] = R"(import os, time
def main(dataset_dir, model_output_dir):
    size = os.path.getsize(os.path.join(dataset_dir, 'weights.bin'))
    end = time.time() + 2.5
    n = 0
    while time.time() < end:
        n += 1
    with open(os.path.join(model_output_dir, 'model.txt'), 'w') as f:
        f.write('%d %d\n' % (size, n))
    print('trained on', size, 'bytes')
)";

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestE2eLedgerFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void jobOnTheOwnersGpuIsCounted();
    void reportWithoutEnrollmentSaysSo();

private:
    std::unique_ptr<ApiClient> loggedIn(const QString &email, const QString &password);
    Run workerReport(const QStringList &extra, const QString &workDir);

    ClusterHarness m_cluster;
    FakeNvidiaSmi m_gpu;
    ServerTrust m_trust;
};

void TestE2eLedgerFakeGpu::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.registerAndLogin(u"alice"_s, u"alice-password"_s));
    QVERIFY(m_cluster.registerAndLogin(u"bob"_s, u"bob-password"_s));
    int exitCode = -1;
    QString errors;
    const QString ownerToken = ServerProcess::runCommand({u"token"_s,
                                                          u"create"_s,
                                                          u"--data-dir"_s,
                                                          m_cluster.serverDataDir(),
                                                          u"--owner"_s,
                                                          u"alice@example.org"_s},
                                                         &exitCode,
                                                         &errors)
                                   .trimmed();
    QVERIFY2(exitCode == 0 && ownerToken.startsWith(u"ddle_"_s), qPrintable(errors));

    QVERIFY(m_gpu.install(m_cluster.path(u"fake-gpu-bin"_s)));
    const QProcessEnvironment environment = m_gpu.environment();
    // The last --token wins over the harness's own (ownerless) one.
    QVERIFY(m_cluster.startNamedWorker(
        u"donor"_s, {u"--token"_s, ownerToken, u"--sample-interval"_s, u"0.2"_s}, environment));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(u"donor"_s)));
    Result<ServerTrust> trust = ServerTrust::fromCaFile(m_cluster.caCert());
    QVERIFY(trust);
    m_trust = *trust;
}

std::unique_ptr<ApiClient> TestE2eLedgerFakeGpu::loggedIn(const QString &email,
                                                          const QString &password)
{
    auto client = std::make_unique<ApiClient>(QUrl(m_cluster.serverUrl()), m_trust);
    const Result<ApiResponse> login =
        client->postJsonSync(u"/v1/auth/login"_s, {{u"email"_s, email}, {u"password"_s, password}});
    if (!login) {
        qWarning("login: %s", qPrintable(login.error().message));
        return nullptr;
    }
    client->setBearerToken(login->json().value(u"access_token"_s).toString());
    return client;
}

Run TestE2eLedgerFakeGpu::workerReport(const QStringList &extra, const QString &workDir)
{
    QProcess report;
    report.start(ClusterHarness::binary(u"ddl-worker"_s),
                 QStringList{u"report"_s,
                             u"--server"_s,
                             m_cluster.serverUrl(),
                             u"--ca-cert"_s,
                             m_cluster.caCert(),
                             u"--work-dir"_s,
                             workDir} +
                     extra);
    if (!report.waitForFinished(30000))
        report.kill();
    return {report.exitStatus() == QProcess::NormalExit ? report.exitCode() : -1,
            QString::fromUtf8(report.readAllStandardOutput()),
            QString::fromUtf8(report.readAllStandardError())};
}

void TestE2eLedgerFakeGpu::jobOnTheOwnersGpuIsCounted()
{
    // Bob's DDL job: one worker, one GPU, one core, a dataset of 300 kB that does not compress.
    QVERIFY(QDir().mkpath(m_cluster.path(u"repos/data"_s)));
    QFile weights(m_cluster.path(u"repos/data/weights.bin"_s));
    QVERIFY(weights.open(QIODevice::WriteOnly));
    QByteArray noise(DatasetBytes, Qt::Uninitialized);
    QRandomGenerator(17).fillRange(reinterpret_cast<quint32 *>(noise.data()),
                                   noise.size() / sizeof(quint32));
    QVERIFY(weights.write(noise) == DatasetBytes);
    weights.close();
    const QString repo = m_cluster.makeRepo(
        u"gpu-job"_s,
        {{u"main.py"_s, MainPy},
         {u"task.yaml"_s, ddlTaskYaml(u"ledger-gpu"_s) + "  gpu_per_worker: 1\n"}});
    QVERIFY(!repo.isEmpty());
    const CliRun submitted =
        m_cluster.cli(u"bob"_s, {u"submit"_s, u"--task_config=task.yaml"_s}, repo);
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(u"bob"_s, uuid, 120000);
    QVERIFY2(state == u"SUCCEEDED"_s, qPrintable(state + u'\n' + m_cluster.workerLog(u"donor"_s)));

    const auto alice = loggedIn(u"alice@example.org"_s, u"alice-password"_s);
    const auto bob = loggedIn(u"bob@example.org"_s, u"bob-password"_s);
    QVERIFY(alice && bob);
    const Result<ApiResponse> summary = alice->getSync(u"/v1/ledger"_s);
    QVERIFY2(summary, summary ? "" : qPrintable(summary.error().message));
    const OwnerLedger owned = OwnerLedger::fromJson(summary->json());
    QCOMPARE(owned.workers.size(), 1);
    const WorkerLedger donor = owned.workers.first();
    QCOMPARE(donor.name, u"donor"_s);
    QCOMPARE(donor.owner, u"alice@example.org"_s);
    const LedgerTotals &given = donor.totals;
    QCOMPARE(given.tasksRun, 1);
    QCOMPARE(given.tasksSucceeded, 1);
    QCOMPARE(given.jobs, 1);
    QCOMPARE(given.preemptions, 0);
    // One fake GPU held for the task's 2.5 s and more (Python's start, the upload).
    QVERIFY2(given.gpuSeconds >= 2.5 && given.gpuSeconds < 120,
             qPrintable(QString::number(given.gpuSeconds)));
    QCOMPARE(given.cpuCoreSeconds, given.gpuSeconds);
    QVERIFY2(given.cpuSecondsMeasured > 0, qPrintable(QString::number(given.cpuSecondsMeasured)));
    // The dataset, the code and the runner's image of it came down; the model and logs went up.
    QVERIFY2(given.bytesDownloaded > DatasetBytes,
             qPrintable(QString::number(given.bytesDownloaded)));
    QVERIFY2(given.bytesUploaded > 0, qPrintable(QString::number(given.bytesUploaded)));
    QCOMPARE(owned.total, given);
    // The same through ddlcli, signed in as the owner.
    const CliRun table = m_cluster.cli(u"alice"_s, {u"ledger"_s});
    QVERIFY2(table.exitCode == 0 && table.out.contains(u"donor"_s) &&
                 table.out.contains(u"1/1/0"_s) && table.out.contains(u"total"_s),
             qPrintable(table.out + table.err));
    const CliRun cliJson = m_cluster.cli(u"alice"_s, {u"ledger"_s, u"--output=json"_s});
    QCOMPARE(OwnerLedger::fromJson(QJsonDocument::fromJson(cliJson.out.toUtf8()).object()).total,
             given);

    // Bob ran the job, but the worker is not his: its ledger is not found for him.
    const Result<ApiResponse> refused =
        bob->getSync(u"/v1/workers/%1/ledger"_s.arg(donor.workerId));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, u"not_found"_s);
    const Result<ApiResponse> bobs = bob->getSync(u"/v1/ledger"_s);
    QVERIFY(bobs);
    QVERIFY(OwnerLedger::fromJson(bobs->json()).workers.isEmpty());

    // The worker reports the task's end once more (as after a lost answer): it is refused as a
    // stale lease, and the ledger counts it once.
    const Result<ApiResponse> job = bob->getSync(u"/v1/jobs/"_s + uuid);
    QVERIFY(job);
    const QJsonArray tasks = job->json().value(u"tasks"_s).toArray();
    QCOMPARE(tasks.size(), 1);
    QFile identity(m_cluster.path(u"workers/donor/worker.json"_s));
    QVERIFY(identity.open(QIODevice::ReadOnly));
    ApiClient asWorker(QUrl(m_cluster.serverUrl()), m_trust);
    asWorker.setBearerToken(
        QJsonDocument::fromJson(identity.readAll()).object().value(u"worker_token"_s).toString());
    const Result<ApiResponse> again = asWorker.postJsonSync(
        u"/v1/workers/tasks/%1/state"_s.arg(tasks.first().toObject().value(u"id"_s).toInteger()),
        {{u"state"_s, u"SUCCEEDED"_s}, {u"exit_code"_s, 0}});
    QVERIFY(!again);
    QCOMPARE(again.error().code, u"conflict"_s);
    const Result<ApiResponse> after =
        alice->getSync(u"/v1/workers/%1/ledger"_s.arg(donor.workerId));
    QVERIFY(after);
    const LedgerTotals afterResend = WorkerLedger::fromJson(after->json()).totals;
    QCOMPARE(afterResend.tasksRun, 1);
    QCOMPARE(afterResend.gpuSeconds, given.gpuSeconds);

    // `ddl-worker report`, from the worker's config, prints what the owner read.
    const QString workDir = m_cluster.path(u"workers/donor"_s);
    const Run text = workerReport({}, workDir);
    QVERIFY2(text.exitCode == 0, qPrintable(text.out + text.err));
    qInfo().noquote() << u"ddl-worker report:\n"_s << text.out;
    QVERIFY2(text.out.contains(u"GPU-hours given: %1"_s.arg(given.gpuSeconds / 3600.0, 0, 'f', 3)),
             qPrintable(text.out));
    QVERIFY2(text.out.contains(u"Tasks run: 1 (1 succeeded, 0 failed)"_s), qPrintable(text.out));
    QVERIFY2(text.out.contains(u"Jobs run: 1"_s), qPrintable(text.out));
    QVERIFY2(text.out.contains(u"Preemptions: 0"_s), qPrintable(text.out));
    QVERIFY2(text.out.contains(u"(%1 bytes)"_s.arg(given.bytesDownloaded)), qPrintable(text.out));
    QVERIFY2(text.out.contains(u"owned by alice@example.org"_s), qPrintable(text.out));
    const Run json = workerReport({u"--json"_s}, workDir);
    QVERIFY2(json.exitCode == 0, qPrintable(json.out + json.err));
    QCOMPARE(WorkerLedger::fromJson(QJsonDocument::fromJson(json.out.toUtf8()).object()).totals,
             given);
}

void TestE2eLedgerFakeGpu::reportWithoutEnrollmentSaysSo()
{
    const QString empty = m_cluster.path(u"workers/never-enrolled"_s);
    QVERIFY(QDir().mkpath(empty));
    const Run report = workerReport({}, empty);
    QVERIFY(report.exitCode != 0);
    QVERIFY2(report.err.contains(u"has not enrolled yet"_s), qPrintable(report.err));
    const Run badFlag =
        workerReport({u"--since"_s, u"yesterday"_s}, m_cluster.path(u"workers/donor"_s));
    QVERIFY(badFlag.exitCode != 0);
    QVERIFY2(badFlag.err.contains(u"since"_s), qPrintable(badFlag.err));
}

QTEST_GUILESS_MAIN(TestE2eLedgerFakeGpu)
#include "tst_e2e_ledger_fakegpu.moc"
