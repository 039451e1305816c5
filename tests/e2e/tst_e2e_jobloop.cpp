// The whole job loop with real processes: ddl-server and ddl-worker over TLS on loopback, ddlcli
// for two users, the example project from a real git repository, real Python.
#include "clusterharness.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

class TestE2eJobLoop : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void exampleTrainsAndModelDownloads();
    void smallFilesDatasetIsLaidOutForTheTask();
    void otherUserCannotSeeOrDownload();
    void dirtyTreeIsRefused();
    void badTaskYamlIsRefused();
    void failingMainEndsFailedWithTraceback();
    void cancelStopsARunningJob();
    void openPaiJobWithoutCodeRuns();
    void secretsNeverReachTheLogs();

private:
    QString submit(const QString &user, const QString &repo, CliRun *run = nullptr);
    // Polls `ddlcli progress` until the job ends; returns its final state.
    QString statusOf(const QString &user, const QString &uuid);
    void commitFile(const QString &repo, const QString &name, const QByteArray &content);

    ClusterHarness m_cluster;
    QString m_jobUuid;
};

void TestE2eJobLoop::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startWorker({QStringLiteral("--slots"), QStringLiteral("2")}));
    QVERIFY(m_cluster.registerAndLogin(QStringLiteral("alice"), QStringLiteral("alice-password")));
    QVERIFY(m_cluster.registerAndLogin(QStringLiteral("bob"), QStringLiteral("bob-password1")));
}

QString TestE2eJobLoop::submit(const QString &user, const QString &repo, CliRun *run)
{
    const CliRun result = m_cluster.cli(user, {QStringLiteral("submit"),
                                               QStringLiteral("--task_config=task.yaml")},
                                        repo);
    if (run)
        *run = result;
    return jobUuidOf(result.out);
}

QString TestE2eJobLoop::statusOf(const QString &user, const QString &uuid)
{
    const CliRun run = m_cluster.cli(user, {QStringLiteral("progress"),
                                            QStringLiteral("--job_uuid=") + uuid});
    static const QRegularExpression statusLine(QStringLiteral("^status: (\\S+)$"),
                                               QRegularExpression::MultilineOption);
    return statusLine.match(run.out).captured(1);
}

void TestE2eJobLoop::commitFile(const QString &repo, const QString &name, const QByteArray &content)
{
    QFile file(QDir(repo).filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(content);
    file.close();
    QVERIFY(ClusterHarness::git(repo, {QStringLiteral("add"), name}));
    QVERIFY(ClusterHarness::git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), name}));
}

void TestE2eJobLoop::exampleTrainsAndModelDownloads()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("alice-iris"));
    QVERIFY(!repo.isEmpty());
    CliRun run;
    m_jobUuid = submit(QStringLiteral("alice"), repo, &run);
    QVERIFY2(!m_jobUuid.isEmpty(), qPrintable(run.out + run.err));

    const QString state = m_cluster.waitForJobEnd(QStringLiteral("alice"), m_jobUuid);
    QVERIFY2(state == QLatin1String("SUCCEEDED"),
             qPrintable(state + u'\n' + m_cluster.workerLog().right(3000)));

    const CliRun progress = m_cluster.cli(QStringLiteral("alice"),
                                          {QStringLiteral("progress"),
                                           QStringLiteral("--job_uuid=") + m_jobUuid});
    QVERIFY2(progress.out.contains(QLatin1String("DDL_METRIC")), qPrintable(progress.out));

    const QString dest = m_cluster.path(QStringLiteral("alice-model"));
    const CliRun download = m_cluster.cli(QStringLiteral("alice"),
                                          {QStringLiteral("download"),
                                           QStringLiteral("--job_uuid=") + m_jobUuid,
                                           QStringLiteral("--dest=") + dest});
    QCOMPARE(download.exitCode, 0);
    QVERIFY(QFileInfo(QDir(dest).filePath(QStringLiteral("model.npz"))).size() > 0);
    QFile metrics(QDir(dest).filePath(QStringLiteral("metrics.json")));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    const QJsonObject values = QJsonDocument::fromJson(metrics.readAll()).object();
    // The example really learns: Iris is easy, so a trained model is far above chance (1/3).
    QVERIFY2(values.value(QStringLiteral("test_accuracy")).toDouble() > 0.8,
             QJsonDocument(values).toJson().constData());
}

void TestE2eJobLoop::smallFilesDatasetIsLaidOutForTheTask()
{
    // 300 small files: they travel in batches and lie in the server's packs; the task sees each
    // one whole, at its path, and its listing comes back as an artifact.
    const QString repo = m_cluster.makeRepo(
        QStringLiteral("alice-small-files"),
        {{QStringLiteral("main.py"),
          "import hashlib, os\n\ndef main(dataset_dir, model_output_dir):\n"
          "    lines = []\n"
          "    for root, _, files in os.walk(dataset_dir):\n"
          "        for name in files:\n"
          "            path = os.path.join(root, name)\n"
          "            with open(path, 'rb') as f:\n"
          "                digest = hashlib.sha256(f.read()).hexdigest()\n"
          "            lines.append(os.path.relpath(path, dataset_dir) + ' ' + digest)\n"
          "    with open(os.path.join(model_output_dir, 'listing.txt'), 'w') as out:\n"
          "        out.write('\\n'.join(sorted(lines)) + '\\n')\n"},
         {QStringLiteral("task.yaml"),
          "job_data:\n  dataset:\n    dataset_location: ./data\n  worker_required: 1\n"},
         {QStringLiteral(".gitignore"), "data/\n"}});
    QVERIFY(!repo.isEmpty());
    QStringList expected;
    for (int i = 0; i < 300; ++i) {
        const QString name = QStringLiteral("d%1/f%2.txt").arg(i % 4).arg(i);
        const QByteArray bytes = QByteArray("small file ") + QByteArray::number(i) + '\n'
                                 + QByteArray(100 * (i % 50), char('a' + i % 26));
        QVERIFY(QDir().mkpath(QFileInfo(QDir(repo).filePath(QStringLiteral("data/") + name)).path()));
        QFile file(QDir(repo).filePath(QStringLiteral("data/") + name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        expected << name + u' '
                        + QString::fromLatin1(
                            QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    }
    expected.sort();
    CliRun run;
    const QString uuid = submit(QStringLiteral("alice"), repo, &run);
    QVERIFY2(!uuid.isEmpty(), qPrintable(run.out + run.err));
    const QString state = m_cluster.waitForJobEnd(QStringLiteral("alice"), uuid);
    QVERIFY2(state == QLatin1String("SUCCEEDED"),
             qPrintable(state + u'\n' + m_cluster.workerLog().right(3000)));
    const QString dest = m_cluster.path(QStringLiteral("alice-small-listing"));
    const CliRun download = m_cluster.cli(QStringLiteral("alice"),
                                          {QStringLiteral("download"),
                                           QStringLiteral("--job_uuid=") + uuid,
                                           QStringLiteral("--dest=") + dest});
    QVERIFY2(download.exitCode == 0, qPrintable(download.out + download.err));
    QFile listing(QDir(dest).filePath(QStringLiteral("listing.txt")));
    QVERIFY(listing.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(listing.readAll()), expected.join(u'\n') + u'\n');
}

void TestE2eJobLoop::otherUserCannotSeeOrDownload()
{
    QVERIFY(!m_jobUuid.isEmpty());
    const CliRun progress = m_cluster.cli(QStringLiteral("bob"),
                                          {QStringLiteral("progress"),
                                           QStringLiteral("--job_uuid=") + m_jobUuid});
    QVERIFY(progress.exitCode != 0);
    QVERIFY2(progress.err.contains(QLatin1String("no job")), qPrintable(progress.err));
    const CliRun download = m_cluster.cli(QStringLiteral("bob"),
                                          {QStringLiteral("download"),
                                           QStringLiteral("--job_uuid=") + m_jobUuid,
                                           QStringLiteral("--dest=")
                                               + m_cluster.path(QStringLiteral("bob-model"))});
    QVERIFY(download.exitCode != 0);
    QVERIFY(!QFile::exists(m_cluster.path(QStringLiteral("bob-model/model.npz"))));
    const CliRun list = m_cluster.cli(QStringLiteral("bob"), {QStringLiteral("list")});
    QCOMPARE(list.exitCode, 0);
    QVERIFY(!list.out.contains(m_jobUuid));
    const CliRun cancel = m_cluster.cli(QStringLiteral("bob"),
                                        {QStringLiteral("cancel"),
                                         QStringLiteral("--job_uuid=") + m_jobUuid});
    QVERIFY(cancel.exitCode != 0);
}

void TestE2eJobLoop::dirtyTreeIsRefused()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("alice-dirty"));
    QFile main(QDir(repo).filePath(QStringLiteral("main.py")));
    QVERIFY(main.open(QIODevice::Append));
    main.write("# an edit not committed\n");
    main.close();
    CliRun run;
    QVERIFY(submit(QStringLiteral("alice"), repo, &run).isEmpty());
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains(QLatin1String("main.py")), qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("commit or stash")), qPrintable(run.err));
}

void TestE2eJobLoop::badTaskYamlIsRefused()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("alice-badyaml"));
    commitFile(repo, QStringLiteral("task.yaml"),
               "job_data:\n  dataset:\n    dataset_location: ./data\n  worker_required: 0\n"
               "  gpus: 2\n");
    CliRun run;
    QVERIFY(submit(QStringLiteral("alice"), repo, &run).isEmpty());
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains(QLatin1String("job_data.worker_required: must be >= 1, got 0")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QLatin1String("job_data.gpus")), qPrintable(run.err));
}

void TestE2eJobLoop::failingMainEndsFailedWithTraceback()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("alice-failing"));
    commitFile(repo, QStringLiteral("main.py"),
               "def load(path):\n    raise ValueError('the dataset has no rows: ' + path)\n\n"
               "def main(dataset_dir, model_output_dir):\n    print('starting', flush=True)\n"
               "    load(dataset_dir)\n");
    const QString uuid = submit(QStringLiteral("alice"), repo);
    QVERIFY(!uuid.isEmpty());
    QCOMPARE(m_cluster.waitForJobEnd(QStringLiteral("alice"), uuid), QStringLiteral("FAILED"));
    const CliRun logs = m_cluster.cli(QStringLiteral("alice"),
                                      {QStringLiteral("logs"), QStringLiteral("--job_uuid=") + uuid});
    QCOMPARE(logs.exitCode, 0);
    QVERIFY2(logs.out.contains(QLatin1String("Traceback (most recent call last)")),
             qPrintable(logs.out));
    QVERIFY2(logs.out.contains(QLatin1String("ValueError: the dataset has no rows")),
             qPrintable(logs.out));
    QVERIFY2(logs.out.contains(QLatin1String("starting")), qPrintable(logs.out));

    // One stream at a time: the traceback went to stderr, the print to stdout, and the worker's
    // own lines to neither; the same with -f.
    for (const QStringList &follow : {QStringList(), QStringList{QStringLiteral("-f")}}) {
        const CliRun errors = m_cluster.cli(QStringLiteral("alice"),
                                            QStringList{QStringLiteral("logs"),
                                                        QStringLiteral("--job_uuid=") + uuid,
                                                        QStringLiteral("--stream"),
                                                        QStringLiteral("stderr")}
                                                + follow);
        QCOMPARE(errors.exitCode, 0);
        QVERIFY2(errors.out.contains(QLatin1String("Traceback (most recent call last)")),
                 qPrintable(errors.out));
        QVERIFY2(!errors.out.contains(QLatin1String("starting")), qPrintable(errors.out));
        QVERIFY2(!errors.out.contains(QLatin1String("[ddl-worker]")), qPrintable(errors.out));
        const CliRun output = m_cluster.cli(QStringLiteral("alice"),
                                            QStringList{QStringLiteral("logs"),
                                                        QStringLiteral("--job_uuid=") + uuid,
                                                        QStringLiteral("--stream=stdout")}
                                                + follow);
        QCOMPARE(output.exitCode, 0);
        QCOMPARE(output.out.trimmed(), QStringLiteral("starting"));
    }
    const CliRun wrong = m_cluster.cli(QStringLiteral("alice"),
                                       {QStringLiteral("logs"), QStringLiteral("--job_uuid=") + uuid,
                                        QStringLiteral("--stream=both")});
    QVERIFY(wrong.exitCode != 0);
    QVERIFY2(wrong.err.contains(QLatin1String("stdout")), qPrintable(wrong.err));
}

void TestE2eJobLoop::cancelStopsARunningJob()
{
    const QString repo = m_cluster.makeExampleRepo(QStringLiteral("alice-slow"));
    commitFile(repo, QStringLiteral("main.py"),
               "import subprocess, time\n\ndef main(dataset_dir, model_output_dir):\n"
               "    subprocess.Popen(['sleep', '3171'])\n    print('sleeping', flush=True)\n"
               "    time.sleep(300)\n");
    const QString uuid = submit(QStringLiteral("alice"), repo);
    QVERIFY(!uuid.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(statusOf(QStringLiteral("alice"), uuid) == QLatin1String("RUNNING"),
                             30000);
    const CliRun cancel = m_cluster.cli(QStringLiteral("alice"),
                                        {QStringLiteral("cancel"),
                                         QStringLiteral("--job_uuid=") + uuid});
    QCOMPARE(cancel.exitCode, 0);
    QCOMPARE(statusOf(QStringLiteral("alice"), uuid), QStringLiteral("STOPPED"));
    // The task's whole process tree goes, the child `sleep 3171` included (an odd number, so
    // that no other process on the machine matches).
    QTRY_VERIFY_WITH_TIMEOUT(QProcess::execute(QStringLiteral("pgrep"), // exit 1: none left
                                               {QStringLiteral("-f"), QStringLiteral("^sleep 3171$")})
                                 != 0,
                             15000);
}

void TestE2eJobLoop::openPaiJobWithoutCodeRuns()
{
    // Outside any git repository an OpenPAI job goes without a code package: its command needs
    // none.
    const QString folder = m_cluster.path(QStringLiteral("no-repo"));
    QVERIFY(QDir().mkpath(folder));
    QFile job(QDir(folder).filePath(QStringLiteral("job.json")));
    QVERIFY(job.open(QIODevice::WriteOnly));
    job.write(R"({"jobName": "no-code", "image": "none", "taskRoles": [{"name": "main",
        "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
        "command": "echo ran without code in $PAI_TASK_ROLE_NAME"}]})");
    job.close();
    const CliRun run = m_cluster.cli(QStringLiteral("alice"),
                                     {QStringLiteral("submit"), QStringLiteral("--job_config=job.json")},
                                     folder);
    const QString uuid = jobUuidOf(run.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(run.out + run.err));
    QCOMPARE(m_cluster.waitForJobEnd(QStringLiteral("alice"), uuid), QStringLiteral("SUCCEEDED"));
    const CliRun logs = m_cluster.cli(QStringLiteral("alice"),
                                      {QStringLiteral("logs"), QStringLiteral("--job_uuid=") + uuid});
    QVERIFY2(logs.out.contains(QLatin1String("ran without code in main")), qPrintable(logs.out));
}

// Every token the run made, as found in the files that hold them.
static QStringList tokensIn(const QString &folder)
{
    static const QRegularExpression token(QStringLiteral("ddl[aerw]_[A-Za-z0-9_-]{20,}"));
    QStringList found;
    QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!path.endsWith(QLatin1String(".json")))
            continue;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        auto matches = token.globalMatch(QString::fromUtf8(file.readAll()));
        while (matches.hasNext())
            found << matches.next().captured();
    }
    return found;
}

void TestE2eJobLoop::secretsNeverReachTheLogs()
{
    const QStringList tokens = tokensIn(m_cluster.path(QStringLiteral("users")))
                               + tokensIn(m_cluster.path(QStringLiteral("worker")))
                               + QStringList{m_cluster.enrollToken()};
    QVERIFY(tokens.size() >= 4); // access, refresh, worker, enrollment
    const QString logs = m_cluster.serverLog() + m_cluster.workerLog();
    QVERIFY(!logs.isEmpty());
    for (const QString &secret : tokens + QStringList{QStringLiteral("alice-password"),
                                                      QStringLiteral("bob-password1")}) {
        QVERIFY2(!logs.contains(secret), qPrintable(secret.left(8) + QStringLiteral("...")));
    }
}

QTEST_GUILESS_MAIN(TestE2eJobLoop)
#include "tst_e2e_jobloop.moc"
