// Jobs that name an image, run by a real ddl-worker started with --container-runtime podman: a DDL
// job and an OpenPAI job run inside a tiny image made on this machine with no registry
// (scripts/make-test-image.sh: ID=ddl-test in its /etc/os-release, python3 at /usr/local/bin),
// with their code read-only (DDL) and their output uploaded; a cancelled task leaves no container;
// a job without an image keeps the bubblewrap sandbox on the same worker.
#include "clusterharness.h"
#include "prerequisite.h"
#include "testimage.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QString User = u"ida"_s;
const QString Image = TestImage;

// Runs a program and returns its exit code (-1: did not start or did not finish), with what it
// wrote in output.
int run(const QString &program,
        const QStringList &args,
        QString *output = nullptr,
        int timeoutMs = 300000)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    if (!process.waitForStarted(10000))
        return -1;
    process.closeWriteChannel();
    const bool done = process.waitForFinished(timeoutMs);
    if (output)
        *output = QString::fromLocal8Bit(process.readAll()).trimmed();
    if (!done) {
        process.kill();
        process.waitForFinished(2000);
        return -1;
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray
openPaiJob(const QString &name, const QString &image, const QString &command, int gpus = 0)
{
    const QJsonObject role{{u"name"_s, u"main"_s},
                           {u"taskNumber"_s, 1},
                           {u"cpuNumber"_s, 1},
                           {u"memoryMB"_s, 256},
                           {u"gpuNumber"_s, gpus},
                           {u"command"_s, command}};
    QJsonObject job{{u"jobName"_s, name}, {u"taskRoles"_s, QJsonArray{role}}};
    if (!image.isEmpty())
        job.insert(u"image"_s, image);
    return QJsonDocument(job).toJson();
}

} // namespace

class TestE2eImages : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void ddlJobRunsInTheImage();
    void openPaiJobRunsInTheImage();
    void cancelLeavesNoContainer();
    void containerTaskIsSampled();
    void jobWithoutImageKeepsTheSandbox();
    void gpuTaskKeepsTheSandbox();
    void pushedImageWaitsForAWorkerWithPodman();
    void zooInitBuildPushAndRun();

private:
    // Submits the repository's job.json (OpenPAI) or task.yaml (DDL); returns the job's uuid.
    QString submit(const QString &repo, CliRun *run, const QString &config = u"job.json"_qs);
    QString logOf(const QString &uuid);
    QString download(const QString &uuid, const QString &folder);
    // The names of the containers of this test's worker, running or not.
    QStringList workerContainers();
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    QString m_podman;
};

void TestE2eImages::initTestCase()
{
    m_podman = QStandardPaths::findExecutable(u"podman"_s);
    // scripts/install-deps.sh installs podman and runc: where it ran (CI), they must be there.
    DDL_REQUIRE_PREREQUISITE(!m_podman.isEmpty() &&
                                 !QStandardPaths::findExecutable(u"runc"_s).isEmpty(),
                             u"podman and runc are not installed (scripts/install-deps.sh installs "
                             "them): jobs with an image cannot run here"_s);
    QString said;
    if (run(m_podman, {u"info"_s}, &said, 60000) != 0)
        QSKIP(qPrintable(u"podman cannot run here (podman info: %1)"_s.arg(said.right(400))));
    const QString built = ensureTestImage(m_podman);
    QVERIFY2(built.isEmpty(), qPrintable(built));
    if (const QString problem = containerProblem(m_podman); !problem.isEmpty())
        QSKIP(qPrintable(problem));

    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startWorker({u"--slots"_s,
                                   u"2"_s,
                                   u"--container-runtime"_s,
                                   u"podman"_s,
                                   u"--sample-interval"_s,
                                   u"0.5"_s}));
    QVERIFY(m_cluster.registerAndLogin(User, u"ida-password"_s));
    // The dataset of the DDL jobs, beside their repositories.
    QVERIFY(QDir().mkpath(m_cluster.path(u"repos/data"_s)));
    QFile sample(m_cluster.path(u"repos/data/x.csv"_s));
    QVERIFY(sample.open(QIODevice::WriteOnly));
    sample.write("1,2\n");
}

QString TestE2eImages::submit(const QString &repo, CliRun *run, const QString &config)
{
    const QString option = config.endsWith(u".json"_s) ? u"--job_config="_s : u"--task_config="_s;
    const CliRun result = m_cluster.cli(User, {u"submit"_s, option + config}, repo);
    if (run)
        *run = result;
    return jobUuidOf(result.out);
}

QString TestE2eImages::logOf(const QString &uuid)
{
    return m_cluster.cli(User, {u"logs"_s, u"--job_uuid="_s + uuid}).out;
}

QString TestE2eImages::download(const QString &uuid, const QString &folder)
{
    const QString dest = m_cluster.path(folder);
    const CliRun run =
        m_cluster.cli(User, {u"download"_s, u"--job_uuid="_s + uuid, u"--dest="_s + dest});
    if (run.exitCode != 0)
        qWarning("download failed: %s %s", qUtf8Printable(run.out), qUtf8Printable(run.err));
    return dest;
}

QStringList TestE2eImages::workerContainers()
{
    QString names;
    run(m_podman,
        {u"ps"_s,
         u"--all"_s,
         u"--format"_s,
         u"{{.Names}}"_s,
         u"--filter"_s,
         u"label=ddl.workdir="_s + m_cluster.path(u"worker"_s)},
        &names,
        60000);
    return names.split(u'\n', Qt::SkipEmptyParts);
}

QString TestE2eImages::diagnostics(const QString &uuid)
{
    const CliRun progress = m_cluster.cli(User, {u"progress"_s, u"--job_uuid="_s + uuid});
    return progress.out + progress.err + u"\n--- log ---\n"_s + logOf(uuid).right(3000) +
           u"\n--- worker ---\n"_s + m_cluster.workerLog().right(3000);
}

void TestE2eImages::ddlJobRunsInTheImage()
{
    const QByteArray mainPy = R"(import json, os, sys
def main(dataset_dir, model_output_dir):
    try:
        open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "written.txt"), "w")
        code_writable = True
    except OSError:
        code_writable = False
    seen = {"os_release": open("/etc/os-release").read(),
            "python": sys.executable,
            "code_writable": code_writable,
            "home": os.environ.get("HOME"),
            "task_id": os.environ.get("DDL_TASK_ID")}
    with open(os.path.join(model_output_dir, "seen.json"), "w") as f:
        json.dump(seen, f)
    print("ran in", seen["os_release"].splitlines()[0])
)";
    const QString repo = m_cluster.makeRepo(
        u"ddl-image"_s,
        {{u"main.py"_s, mainPy}, {u"task.yaml"_s, ddlTaskYaml(u"ddl-in-image"_s, Image)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted, u"task.yaml"_s);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logOf(uuid);
    QVERIFY2(log.contains(u"container: podman, image "_s + Image), qPrintable(log));
    QVERIFY2(log.contains(u"ran in ID=ddl-test"_s), qPrintable(log));

    const QJsonObject seen =
        QJsonDocument::fromJson(readFile(download(uuid, u"ddl-image-out"_s) + u"/seen.json"_s))
            .object();
    QVERIFY2(seen.value(u"os_release"_s).toString().contains(u"ID=ddl-test"_s),
             qPrintable(seen.value(u"os_release"_s).toString()));
    // The image's interpreter, not the host's /usr/bin/python3.
    QCOMPARE(seen.value(u"python"_s).toString(), u"/usr/local/bin/python3"_s);
    QCOMPARE(seen.value(u"code_writable"_s).toBool(true), false);
    QVERIFY2(seen.value(u"home"_s).toString().endsWith(u"/scratch"_s),
             qPrintable(seen.value(u"home"_s).toString()));
    QVERIFY(!seen.value(u"task_id"_s).toString().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(workerContainers().isEmpty(), 30000);
}

void TestE2eImages::openPaiJobRunsInTheImage()
{
    const QString command =
        u"grep ^ID= /etc/os-release && command -v python3 && "
        u"python3 -c 'import os; print(os.environ[\"PAI_TASK_ROLE_NAME\"])' > "
        u"\"$PAI_OUTPUT_DIR/role.txt\" && touch \"$PAI_CODE_DIR/made-in-code\" && "
        u"echo \"port=$PAI_CURRENT_CONTAINER_PORT\""_s;
    const QString repo = m_cluster.makeRepo(
        u"pai-image"_s, {{u"job.json"_s, openPaiJob(u"pai-in-image"_s, Image, command)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logOf(uuid);
    QVERIFY2(log.contains(u"ID=ddl-test"_s), qPrintable(log));
    QVERIFY2(log.contains(u"/usr/local/bin/python3"_s), qPrintable(log));
    static const QRegularExpression port(u"port=[1-9][0-9]*"_s);
    QVERIFY2(port.match(log).hasMatch(), qPrintable(log));
    const QString dest = download(uuid, u"pai-image-out"_s);
    QCOMPARE(readFile(dest + u"/role.txt"_s).trimmed(), QByteArray("main"));
}

void TestE2eImages::cancelLeavesNoContainer()
{
    const QString repo = m_cluster.makeRepo(
        u"pai-cancel"_s,
        {{u"job.json"_s, openPaiJob(u"pai-cancel"_s, Image, u"echo waiting; sleep 600"_s)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    QTRY_VERIFY2_WITH_TIMEOUT(
        logOf(uuid).contains(u"waiting"_s), qPrintable(diagnostics(uuid)), 60000);
    QCOMPARE(workerContainers().size(), 1);
    const CliRun cancelled = m_cluster.cli(User, {u"cancel"_s, u"--job_uuid="_s + uuid});
    QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.out + cancelled.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 60000);
    QVERIFY2(state == "STOPPED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    QTRY_VERIFY_WITH_TIMEOUT(workerContainers().isEmpty(), 30000);
    // Nothing of the task runs on, in the container or outside it.
    QString processes;
    run(u"ps"_s, {u"-eo"_s, u"args"_s}, &processes);
    QVERIFY2(!processes.contains(u"sleep 600"_s), qPrintable(processes));
}

// A task in a container is measured by the container's processes (conmon's children, not the
// worker's): its busy Python shows in the job's utilisation.
void TestE2eImages::containerTaskIsSampled()
{
    // Busy for 5 s without allocating (the task has 256 MB).
    const QString command = u"python3 -c 'import time; end = time.time() + 5; "
                            u"any(time.time() >= end for _ in iter(int, 1))'"_s;
    const QString repo = m_cluster.makeRepo(
        u"pai-busy"_s, {{u"job.json"_s, openPaiJob(u"pai-busy"_s, Image, command)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    double busiest = 0;
    qint64 memory = 0;
    QTRY_VERIFY2_WITH_TIMEOUT(
        [&] {
            const CliRun top =
                m_cluster.cli(User, {u"top"_s, u"--job_uuid="_s + uuid, u"--output=json"_s});
            const QJsonArray tasks =
                QJsonDocument::fromJson(top.out.toUtf8()).object().value(u"tasks"_s).toArray();
            for (const QJsonValue &sample :
                 tasks.isEmpty() ? QJsonArray()
                                 : tasks.first().toObject().value(u"samples"_s).toArray()) {
                if (sample.toObject().value(u"cpu_percent"_s).toDouble() > busiest) {
                    busiest = sample.toObject().value(u"cpu_percent"_s).toDouble();
                    memory = sample.toObject().value(u"memory_bytes"_s).toInteger();
                }
            }
            return busiest >= 50;
        }(),
        qPrintable(u"busiest sample: %1% of a core\n"_s.arg(busiest) + diagnostics(uuid)),
        60000);
    QVERIFY(memory > 1024 * 1024); // a Python interpreter, not just bash
    const QString state = m_cluster.waitForJobEnd(User, uuid, 60000);
    QVERIFY2(state == u"SUCCEEDED"_s, qPrintable(state + u'\n' + diagnostics(uuid)));
}

void TestE2eImages::jobWithoutImageKeepsTheSandbox()
{
    const QString repo = m_cluster.makeRepo(
        u"no-image"_s,
        {{u"main.py"_s, "import sys\ndef main(d, o):\n    print('python', sys.executable)\n"},
         {u"task.yaml"_s, ddlTaskYaml(u"ddl-no-image"_s, {})}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted, u"task.yaml"_s);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logOf(uuid);
    QVERIFY2(log.contains(u"sandbox: bubblewrap"_s), qPrintable(log));
    QVERIFY2(!log.contains(u"container: podman"_s), qPrintable(log));
    QVERIFY2(!log.contains(u"/usr/local/bin/python3"_s), qPrintable(log));
}

void TestE2eImages::gpuTaskKeepsTheSandbox()
{
    // A worker declaring a GPU (this machine has none): GPUs reach no container yet, so the task
    // runs in the sandbox, where it would see its devices, and its log says why.
    QVERIFY(m_cluster.startNamedWorker(
        u"gpu"_s, {u"--gpus"_s, u"1"_s, u"--container-runtime"_s, u"podman"_s}));
    // A job no enrolled worker could hold is refused at submit: wait for the second enrollment.
    QTRY_VERIFY_WITH_TIMEOUT(m_cluster.serverLog().count(u"enrolled from"_s) >= 2, 30000);
    const QString repo = m_cluster.makeRepo(
        u"pai-gpu"_s,
        {{u"job.json"_s, openPaiJob(u"pai-gpu"_s, Image, u"cat /etc/os-release"_s, 1)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logOf(uuid);
    QVERIFY2(log.contains(u"image "_s + Image + u" not used: GPUs cannot be given to containers"_s),
             qPrintable(log));
    QVERIFY2(log.contains(u"sandbox: bubblewrap"_s), qPrintable(log));
    QVERIFY2(!log.contains(u"ID=ddl-test"_s), qPrintable(log));
}

// ElasticDL's workflow through ddlcli: zoo init writes a Dockerfile FROM the base image, zoo
// build builds the model zoo into an image with podman, zoo push sends it to DDL, and a job that
// names it runs in it (its files at /model_zoo).
void TestE2eImages::zooInitBuildPushAndRun()
{
    QTemporaryDir zoo;
    QVERIFY(zoo.isValid());
    QFile marker(zoo.filePath(u"zoo_marker.txt"_s));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.write("built by zoo build\n");
    marker.close();

    const CliRun init =
        m_cluster.cli(User, {u"zoo"_s, u"init"_s, u"--base_image="_s + Image}, zoo.path());
    QVERIFY2(init.exitCode == 0, qPrintable(init.out + init.err));
    const QByteArray dockerfile = readFile(zoo.filePath(u"Dockerfile"_s));
    QVERIFY2(dockerfile.contains(QByteArray("FROM " + Image.toUtf8() + "\n")),
             dockerfile.constData());
    const CliRun again =
        m_cluster.cli(User, {u"zoo"_s, u"init"_s, u"--base_image="_s + Image}, zoo.path());
    QVERIFY2(again.exitCode != 0 && again.err.contains(u"--force"_s), qPrintable(again.err));

    const QString built = u"localhost/ddl-zoo-e2e:1"_s;
    const CliRun build = m_cluster.cli(
        User, {u"zoo"_s, u"build"_s, u"--image="_s + built, u"."_s}, zoo.path(), {}, 300000);
    QVERIFY2(build.exitCode == 0, qPrintable(build.out + build.err));
    QCOMPARE(run(m_podman, {u"image"_s, u"exists"_s, built}), 0);
    const CliRun push = m_cluster.cli(User, {u"zoo"_s, u"push"_s, built});
    QVERIFY2(push.exitCode == 0 && push.out.contains(u"image ddl://ddl-zoo-e2e: "_s),
             qPrintable(push.out + push.err));

    const QByteArray mainPy = R"(def main(dataset_dir, model_output_dir):
    print("zoo says:", open("/model_zoo/zoo_marker.txt").read().strip())
)";
    const QString repo =
        m_cluster.makeRepo(u"zoo-job"_s,
                           {{u"main.py"_s, mainPy},
                            {u"task.yaml"_s, ddlTaskYaml(u"zoo-job"_s, u"ddl://ddl-zoo-e2e"_s)}});
    QVERIFY(!repo.isEmpty());
    CliRun submitted;
    const QString uuid = submit(repo, &submitted, u"task.yaml"_s);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    const QString state = m_cluster.waitForJobEnd(User, uuid, 120000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QString log = logOf(uuid);
    QVERIFY2(log.contains(u"zoo says: built by zoo build"_s), qPrintable(log));
    run(m_podman, {u"rmi"_s, u"--force"_s, built});
}

void TestE2eImages::pushedImageWaitsForAWorkerWithPodman()
{
    // A cluster of its own, whose only worker at first runs no containers.
    ClusterHarness cluster;
    QVERIFY2(cluster.startServer(), qPrintable(cluster.serverLog()));
    QVERIFY(cluster.startWorker({u"--slots"_s, u"2"_s}));
    QVERIFY(cluster.registerAndLogin(User, u"ida-password"_s));
    QTRY_VERIFY_WITH_TIMEOUT(cluster.serverLog().contains(u"enrolled from"_s), 30000);

    // ddlcli image push sends every layer the first time, none the second.
    static const QRegularExpression sent(
        u"image ddl://ddl-test: .*; sent ([0-9]+) bytes, ([0-9]+) bytes were on the server "
        "already"_s);
    const CliRun first = cluster.cli(User, {u"image"_s, u"push"_s, Image});
    const QRegularExpressionMatch firstSent = sent.match(first.out);
    QVERIFY2(first.exitCode == 0 && firstSent.hasMatch(), qPrintable(first.out + first.err));
    QVERIFY2(firstSent.captured(1).toLongLong() > 1000000, qPrintable(first.out));
    QCOMPARE(firstSent.captured(2).toLongLong(), 0);
    const CliRun again = cluster.cli(User, {u"image"_s, u"push"_s, Image});
    const QRegularExpressionMatch againSent = sent.match(again.out);
    QVERIFY2(again.exitCode == 0 && againSent.hasMatch(), qPrintable(again.out + again.err));
    QCOMPARE(againSent.captured(1).toLongLong(), 0);
    QVERIFY(againSent.captured(2).toLongLong() > 1000000);
    const CliRun listed = cluster.cli(User, {u"image"_s, u"list"_s});
    QVERIFY2(listed.out.contains(u"ddl://ddl-test"_s), qPrintable(listed.out + listed.err));

    const QString pushed = u"ddl://ddl-test"_s;
    const QString repo = cluster.makeRepo(
        u"pai-pushed"_s,
        {{u"job.json"_s, openPaiJob(u"pai-pushed"_s, pushed, u"grep ^ID= /etc/os-release"_s)}});
    QVERIFY(!repo.isEmpty());
    const QStringList submit{u"submit"_s, u"--job_config=job.json"_s};
    const QStringList anyway = submit + QStringList{u"--allow-unschedulable"_s};

    // Images are their owner's: another user's job cannot name it.
    QVERIFY(cluster.registerAndLogin(u"otto"_s, u"otto-password"_s));
    const CliRun foreign = cluster.cli(u"otto"_s, anyway, repo);
    QVERIFY2(foreign.exitCode != 0 && foreign.err.contains(u"no image named ddl-test"_s),
             qPrintable(foreign.out + foreign.err));

    // No registered worker could ever run it: refused at submit, saying why.
    const CliRun refused = cluster.cli(User, submit, repo);
    QVERIFY2(refused.exitCode != 0, qPrintable(refused.out));
    QVERIFY2(refused.err.contains(u"needs a worker with a container runtime (podman) for image "
                                  "ddl://ddl-test; no registered worker has one"_s),
             qPrintable(refused.err));

    // Queued anyway, it waits with that reason while only the sandbox worker is online.
    const CliRun queued = cluster.cli(User, anyway, repo);
    const QString uuid = jobUuidOf(queued.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(queued.out + queued.err));
    const QString waits = u"needs a worker with a container runtime (podman) for image "
                          "ddl://ddl-test; none is online (start a ddl-worker with "
                          "--container-runtime podman)"_s;
    QTRY_COMPARE_WITH_TIMEOUT(cluster.job(User, uuid).value(u"reason"_s).toString(), waits, 30000);
    QCOMPARE(cluster.job(User, uuid).value(u"state"_s).toString(), u"WAITING"_s);

    // A worker with podman joins, with an image store of its own that lacks the image: the
    // layers come through its blob cache and are loaded, once.
    const QString storage = cluster.path(u"podman-storage.conf"_s);
    QFile conf(storage);
    QVERIFY(conf.open(QIODevice::WriteOnly));
    conf.write("[storage]\ndriver = \"vfs\"\ngraphroot = \"" +
               cluster.path(u"podman-root"_s).toUtf8() + "\"\nrunroot = \"" +
               cluster.path(u"podman-run"_s).toUtf8() + "\"\n");
    conf.close();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"CONTAINERS_STORAGE_CONF"_s, storage);
    QVERIFY(cluster.startNamedWorker(
        u"podman"_s, {u"--container-runtime"_s, u"podman"_s}, environment));
    const auto logOf = [&cluster](const QString &job) {
        return cluster.cli(User, {u"logs"_s, u"--job_uuid="_s + job}).out;
    };
    QString state = cluster.waitForJobEnd(User, uuid, 120000);
    QString log = logOf(uuid);
    QVERIFY2(state == "SUCCEEDED"_L1,
             qPrintable(state + u'\n' + log + cluster.workerLog(u"podman"_s).right(3000)));
    QVERIFY2(log.contains(u"loading image ddl://ddl-test ("_s), qPrintable(log));
    QVERIFY2(log.contains(u"image loaded in "_s), qPrintable(log));
    QVERIFY2(log.contains(u"ID=ddl-test"_s), qPrintable(log));
    // The job's events tell the same, in order.
    QStringList events;
    for (const QJsonValue &event : cluster.job(User, uuid).value(u"events"_s).toArray())
        events << event.toObject().value(u"message"_s).toString();
    static const QRegularExpression loading(u"^loading image ddl://ddl-test \\([0-9.]+ MiB\\)$"_s);
    static const QRegularExpression loaded(u"^image loaded in [0-9.]+ s$"_s);
    QVERIFY2(events.size() == 2 && loading.match(events.value(0)).hasMatch() &&
                 loaded.match(events.value(1)).hasMatch(),
             qPrintable(events.join(u'\n')));

    // The next job finds it loaded.
    const CliRun next = cluster.cli(User, submit, repo);
    const QString nextUuid = jobUuidOf(next.out);
    QVERIFY2(!nextUuid.isEmpty(), qPrintable(next.out + next.err));
    state = cluster.waitForJobEnd(User, nextUuid, 120000);
    log = logOf(nextUuid);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + log));
    QVERIFY2(log.contains(u"image ddl://ddl-test is on this worker already"_s), qPrintable(log));
    QVERIFY2(!log.contains(u"loading image"_s), qPrintable(log));
    QVERIFY2(log.contains(u"ID=ddl-test"_s), qPrintable(log));
}

QTEST_GUILESS_MAIN(TestE2eImages)
#include "tst_e2e_images.moc"
