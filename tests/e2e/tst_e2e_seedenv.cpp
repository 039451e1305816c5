// What a seed user's task sees and how jobs are placed, with real processes: ddl-server and one
// GPU-less ddl-worker (default slots) on loopback, started with a secret in its environment and
// --advertise-address; ddlcli submitting DDL and OpenPAI jobs from real git repositories.
#include "clusterharness.h"
#include "polluntil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QThread>
#include <functional>

using namespace Qt::Literals::StringLiterals;

namespace {

constexpr char OwnerSecret[] = "owner-secret-4f1d9c";
constexpr char AdvertisedAddress[] = "10.9.9.9";

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The task of these jobs reports what it sees as JSON in its output folder.
constexpr char ReportPy[] = R"(import json, os, sys
report = {
    "env": dict(os.environ),
    "cwd": os.getcwd(),
    "python": sys.executable,
    "dirs": {name: os.path.isdir(os.environ.get(name, "")) for name in
             ("PAI_DATA_DIR", "PAI_OUTPUT_DIR", "PAI_CODE_DIR")},
    "data_files": sorted(os.listdir(os.environ.get("PAI_DATA_DIR", "/nonexistent")))
                  if os.path.isdir(os.environ.get("PAI_DATA_DIR", "")) else [],
    "made_in_cwd": os.path.isfile("made-in-cwd"),
}
out = os.environ.get("PAI_OUTPUT_DIR") or os.environ["DDL_OUTPUT_DIR"]
with open(os.path.join(out, "report.json"), "w") as f:
    json.dump(report, f)
)";

} // namespace

class TestE2eSeedEnv : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ddlTasksHaveRanksAndOutputsOfTheirOwn();
    void openPaiTaskSeesItsEnvironment();
    void twoRolesRunOnATwoCpuWorker();
    void tooBigJobIsRefusedUnlessAllowed();
    void liveNamesAreUniqueAndAddressJobs();

private:
    QString submit(const QString &repo,
                   const QString &config,
                   const QStringList &extra = {},
                   CliRun *run = nullptr);
    QJsonObject job(const QString &uuidOrName) { return m_cluster.job(m_user, uuidOrName); }
    QString waitForEnd(const QString &uuidOrName, int timeoutMs = 90000)
    {
        return m_cluster.waitForJobEnd(m_user, uuidOrName, timeoutMs);
    }
    QString download(const QString &uuidOrName, const QString &folder);
    QString diagnostics(const QString &uuidOrName);

    ClusterHarness m_cluster;
    const QString m_user = u"seed"_s;
};

void TestE2eSeedEnv::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"AWS_SECRET_ACCESS_KEY"_s, QString::fromLatin1(OwnerSecret));
    // No --slots: a GPU-less worker runs as many tasks as it has CPUs.
    QVERIFY(m_cluster.startNamedWorker(
        u"cpu-only"_s,
        {u"--advertise-address"_s, QString::fromLatin1(AdvertisedAddress)},
        environment));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(u"cpu-only"_s)));
    QVERIFY(m_cluster.registerAndLogin(m_user, u"seed-password"_s));
}

QString TestE2eSeedEnv::submit(const QString &repo,
                               const QString &config,
                               const QStringList &extra,
                               CliRun *run)
{
    const QString option = config.endsWith(u".json"_s) ? u"--job_config="_s : u"--task_config="_s;
    const CliRun result =
        m_cluster.cli(m_user, QStringList{u"submit"_s, option + config} + extra, repo);
    if (run)
        *run = result;
    return jobUuidOf(result.out);
}

QString TestE2eSeedEnv::download(const QString &uuidOrName, const QString &folder)
{
    const QString dest = m_cluster.path(folder);
    const CliRun run =
        m_cluster.cli(m_user, {u"download"_s, u"--job_uuid="_s + uuidOrName, u"--dest="_s + dest});
    if (run.exitCode != 0)
        qWarning("download failed: %s %s", qUtf8Printable(run.out), qUtf8Printable(run.err));
    return dest;
}

QString TestE2eSeedEnv::diagnostics(const QString &uuidOrName)
{
    const CliRun logs = m_cluster.cli(m_user, {u"progress"_s, u"--job_uuid="_s + uuidOrName});
    return logs.out + logs.err + u"\n--- worker ---\n"_s +
           m_cluster.workerLog(u"cpu-only"_s).right(3000) + u"\n--- server ---\n"_s +
           m_cluster.serverLog().right(2000);
}

void TestE2eSeedEnv::ddlTasksHaveRanksAndOutputsOfTheirOwn()
{
    const QString repo = m_cluster.makeRepo(u"ranks"_s,
                                            {{u"main.py"_s, R"(import json, os
def main(dataset_dir, model_output_dir):
    rank = int(os.environ["DDL_WORKER_INDEX"])
    with open(os.path.join(model_output_dir, "model.txt"), "w") as f:
        f.write("model of worker %d" % rank)
    with open(os.path.join(model_output_dir, "rank.json"), "w") as f:
        json.dump({k: os.environ.get(k) for k in
                   ("DDL_WORKER_INDEX", "DDL_WORKER_COUNT", "TF_CONFIG")}, f)
)"},
                                             {u"task.yaml"_s, R"(job_data:
  job_name: two-ranks
  dataset:
    dataset_location: ../ranks-data
  worker_required: 2
  cpu_per_worker: 1
  memory_mb_per_worker: 256
)"}});
    QVERIFY(!repo.isEmpty());
    QVERIFY(QDir().mkpath(m_cluster.path(u"repos/ranks-data"_s)));
    QFile data(m_cluster.path(u"repos/ranks-data/x.csv"_s));
    QVERIFY(data.open(QIODevice::WriteOnly));
    data.write("1,2\n");
    data.close();

    CliRun run;
    const QString uuid = submit(repo, u"task.yaml"_s, {}, &run);
    QVERIFY2(!uuid.isEmpty(), qPrintable(run.out + run.err));
    const QString state = waitForEnd(uuid);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));

    const QString dest = download(uuid, u"ranks-out"_s);
    QSet<QString> peers;
    for (int rank = 0; rank < 2; ++rank) {
        const QString folder = dest + u"/worker-%1/"_s.arg(rank);
        QCOMPARE(readFile(folder + u"model.txt"_s),
                 QByteArray("model of worker ") + QByteArray::number(rank));
        const QJsonObject seen =
            QJsonDocument::fromJson(readFile(folder + u"rank.json"_s)).object();
        QCOMPARE(seen.value(u"DDL_WORKER_INDEX"_s).toString(), QString::number(rank));
        QCOMPARE(seen.value(u"DDL_WORKER_COUNT"_s).toString(), u"2"_s);
        const QJsonObject tfConfig =
            QJsonDocument::fromJson(seen.value(u"TF_CONFIG"_s).toString().toUtf8()).object();
        const QJsonArray workers =
            tfConfig.value(u"cluster"_s).toObject().value(u"worker"_s).toArray();
        QCOMPARE(workers.size(), 2);
        for (const QJsonValue &worker : workers) {
            QVERIFY2(worker.toString().startsWith(QLatin1String(AdvertisedAddress) + u':'),
                     qPrintable(worker.toString()));
            peers.insert(worker.toString());
        }
        const QJsonObject task = tfConfig.value(u"task"_s).toObject();
        QCOMPARE(task.value(u"type"_s).toString(), u"worker"_s);
        QCOMPARE(task.value(u"index"_s).toInt(-1), rank);
    }
    QCOMPARE(peers.size(), 2); // two distinct ports, the same list for both tasks
    QVERIFY(!QFile::exists(dest + u"/model.txt"_s));
}

void TestE2eSeedEnv::openPaiTaskSeesItsEnvironment()
{
    // A dataset on the server, named by the job's dataDir.
    const QString dataset = m_cluster.path(u"seed-dataset"_s);
    QVERIFY(QDir().mkpath(dataset));
    QFile sample(dataset + u"/sample.csv"_s);
    QVERIFY(sample.open(QIODevice::WriteOnly));
    sample.write("5.1,3.5\n");
    sample.close();
    const CliRun uploaded =
        m_cluster.cli(m_user, {u"dataset"_s, u"upload"_s, dataset, u"--name=seed-data"_s});
    QVERIFY2(uploaded.exitCode == 0, qPrintable(uploaded.out + uploaded.err));

    // bash's `source`, a file written in the working folder, `python` where only python3 is.
    const QString command =
        u"echo 'export GREETING=sourced' > env.sh && source env.sh && touch made-in-cwd && "
        u"python report.py && echo \"greeting=$GREETING\""_s;
    const QString repo =
        m_cluster.makeRepo(u"paienv"_s,
                           {{u"report.py"_s, ReportPy},
                            {u"job.json"_s,
                             openPaiJob(u"pai-env"_s,
                                        {{u"main"_s, 1, 0, command}},
                                        {{u"dataDir"_s, u"ddl://seed-data"_s},
                                         {u"outputDir"_s, u"hdfs://somewhere/out"_s},
                                         {u"codeDir"_s, u"$PAI_DEFAULT_FS_URI/code"_s}})}});
    QVERIFY(!repo.isEmpty());
    CliRun run;
    const QString uuid = submit(repo, u"job.json"_s, {}, &run);
    QVERIFY2(!uuid.isEmpty(), qPrintable(run.out + run.err));
    const QString state = waitForEnd(uuid);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const CliRun progress = m_cluster.cli(m_user, {u"progress"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(progress.out.contains(u"greeting=sourced"_s), qPrintable(progress.out));

    const QString dest = download(uuid, u"paienv-out"_s);
    const QByteArray reportText = readFile(dest + u"/report.json"_s);
    QVERIFY2(!reportText.isEmpty(), qPrintable(diagnostics(uuid)));
    const QJsonObject report = QJsonDocument::fromJson(reportText).object();
    const QJsonObject env = report.value(u"env"_s).toObject();
    const auto var = [&env](const char *name) { return env.value(QLatin1String(name)).toString(); };

    // The worker's own environment stays out; the documented one is there.
    QVERIFY2(!reportText.contains(OwnerSecret), reportText.constData());
    QVERIFY(!env.contains(u"AWS_SECRET_ACCESS_KEY"_s));
    QVERIFY2(
        var("PATH").endsWith(u"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"_s),
        qPrintable(var("PATH")));
    QCOMPARE(var("LANG"), u"C.UTF-8"_s);
    QCOMPARE(var("LC_ALL"), u"C.UTF-8"_s);
    QVERIFY2(var("HOME").endsWith(u"/scratch"_s), qPrintable(var("HOME")));
    QCOMPARE(var("TMPDIR"), var("HOME"));

    // The seed's PAI_TASK_* and the advertised address, host lists included.
    QCOMPARE(var("PAI_TASK_CPU_NUM"), u"1"_s);
    QCOMPARE(var("PAI_TASK_MEM_MB"), u"256"_s);
    QCOMPARE(var("PAI_TASK_GPU_NUM"), u"0"_s);
    QCOMPARE(var("PAI_TASK_ROLE_NO"), u"0"_s);
    QCOMPARE(var("PAI_CURRENT_CONTAINER_IP"), QString::fromLatin1(AdvertisedAddress));
    QCOMPARE(var("PAI_TASK_ROLE_0_HOST_LIST"),
             QString::fromLatin1(AdvertisedAddress) + u':' + var("PAI_CURRENT_CONTAINER_PORT"));

    // Real folders: the dataset laid out, the code unpacked and writable, the output uploaded.
    const QJsonObject dirs = report.value(u"dirs"_s).toObject();
    for (const QString &name : {u"PAI_DATA_DIR"_s, u"PAI_OUTPUT_DIR"_s, u"PAI_CODE_DIR"_s})
        QVERIFY2(dirs.value(name).toBool(),
                 qPrintable(name + u" = "_s + env.value(name).toString()));
    QCOMPARE(report.value(u"data_files"_s).toArray(), QJsonArray{u"sample.csv"_s});
    QCOMPARE(var("PAI_DATA_DIR_URI"), u"ddl://seed-data"_s);
    QCOMPARE(var("PAI_OUTPUT_DIR_URI"), u"hdfs://somewhere/out"_s);
    QCOMPARE(report.value(u"cwd"_s).toString(), var("PAI_CODE_DIR"));
    QVERIFY(report.value(u"made_in_cwd"_s).toBool());
    QVERIFY2(report.value(u"python"_s).toString().contains(u"python"_s),
             qPrintable(report.value(u"python"_s).toString()));
}

void TestE2eSeedEnv::twoRolesRunOnATwoCpuWorker()
{
    // OpenPAI's two-role example: a gang of two 1-CPU tasks, placed at once on the one worker,
    // which has 2 CPUs and no --slots.
    const QString command = u"echo role $PAI_TASK_ROLE_NAME of $PAI_TASK_ROLES_NUM"_s;
    const QString repo = m_cluster.makeRepo(
        u"tworoles"_s,
        {{u"job.json"_s,
          openPaiJob(u"two-roles"_s, {{u"ps"_s, 1, 0, command}, {u"worker"_s, 1, 0, command}})}});
    QVERIFY(!repo.isEmpty());
    CliRun run;
    const QString uuid = submit(repo, u"job.json"_s, {}, &run);
    QVERIFY2(!uuid.isEmpty(), qPrintable(run.out + run.err));
    const QString state = waitForEnd(uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonArray tasks = job(uuid).value(u"tasks"_s).toArray();
    QCOMPARE(tasks.size(), 2);
    for (const QJsonValue &task : tasks)
        QCOMPARE(task.toObject().value(u"worker"_s).toString(), u"cpu-only"_s);
}

void TestE2eSeedEnv::tooBigJobIsRefusedUnlessAllowed()
{
    const QString repo = m_cluster.makeRepo(
        u"toobig"_s,
        {{u"job.json"_s, openPaiJob(u"needs-a-gpu"_s, {{u"train"_s, 1, 1, u"nvidia-smi"_s}})}});
    QVERIFY(!repo.isEmpty());
    CliRun refused;
    QVERIFY(submit(repo, u"job.json"_s, {}, &refused).isEmpty());
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains(u"needs 1 GPU on one worker; the largest worker has 0 GPUs"_s) &&
                 refused.err.contains(u"--allow-unschedulable"_s),
             qPrintable(refused.out + refused.err));
    QVERIFY(job(u"needs-a-gpu"_s).isEmpty());

    CliRun accepted;
    const QString uuid = submit(repo, u"job.json"_s, {u"--allow-unschedulable"_s}, &accepted);
    QVERIFY2(!uuid.isEmpty(), qPrintable(accepted.out + accepted.err));
    QString reason;
    QVERIFY2(pollUntil(
                 [&] {
                     reason = job(uuid).value(u"reason"_s).toString();
                     return reason.contains(u"cannot run until a bigger one joins"_s);
                 },
                 10000),
             qPrintable(reason));
    QCOMPARE(job(uuid).value(u"state"_s).toString(), u"WAITING"_s);
    const CliRun cancel = m_cluster.cli(m_user, {u"cancel"_s, u"--job_uuid=needs-a-gpu"_s});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QCOMPARE(job(uuid).value(u"state"_s).toString(), u"STOPPED"_s);
}

void TestE2eSeedEnv::liveNamesAreUniqueAndAddressJobs()
{
    const QString repo = m_cluster.makeRepo(
        u"names"_s,
        {{u"job.json"_s, openPaiJob(u"sleeper"_s, {{u"main"_s, 1, 0, u"sleep 60"_s}})},
         {u"quick.json"_s, openPaiJob(u"sleeper"_s, {{u"main"_s, 1, 0, u"echo quick"_s}})}});
    QVERIFY(!repo.isEmpty());
    CliRun run;
    const QString first = submit(repo, u"job.json"_s, {}, &run);
    QVERIFY2(!first.isEmpty(), qPrintable(run.out + run.err));

    // A second live job of the same name is refused, saying which one holds the name.
    CliRun duplicate;
    QVERIFY(submit(repo, u"quick.json"_s, {}, &duplicate).isEmpty());
    QVERIFY(duplicate.exitCode != 0);
    QVERIFY2(duplicate.err.contains(u"already have a"_s) && duplicate.err.contains(first),
             qPrintable(duplicate.out + duplicate.err));

    // The name addresses the job in progress, logs and cancel.
    QCOMPARE(job(u"sleeper"_s).value(u"uuid"_s).toString(), first);
    const CliRun cancel = m_cluster.cli(m_user, {u"cancel"_s, u"--job_uuid=sleeper"_s});
    QVERIFY2(cancel.exitCode == 0, qPrintable(cancel.out + cancel.err));
    QCOMPARE(waitForEnd(first, 30000), u"STOPPED"_s);

    // Once it ended the name is free again, and it now means the newest job.
    const QString second = submit(repo, u"quick.json"_s, {}, &run);
    QVERIFY2(!second.isEmpty(), qPrintable(run.out + run.err));
    QCOMPARE(waitForEnd(u"sleeper"_s), u"SUCCEEDED"_s);
    QCOMPARE(job(u"sleeper"_s).value(u"uuid"_s).toString(), second);
    QCOMPARE(job(first).value(u"state"_s).toString(), u"STOPPED"_s);
    const CliRun logs = m_cluster.cli(m_user, {u"logs"_s, u"--job_uuid=sleeper"_s});
    QVERIFY2(logs.out.contains(u"quick"_s), qPrintable(logs.out + logs.err));

    // Another user's job of that name stays invisible.
    QVERIFY(m_cluster.registerAndLogin(u"other"_s, u"other-password"_s));
    const CliRun foreign = m_cluster.cli(u"other"_s, {u"progress"_s, u"--job_uuid=sleeper"_s});
    QVERIFY(foreign.exitCode != 0);
    QVERIFY2(foreign.err.contains(u"no job sleeper"_s), qPrintable(foreign.err));
}

QTEST_GUILESS_MAIN(TestE2eSeedEnv)
#include "tst_e2e_seedenv.moc"
