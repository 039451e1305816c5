// Tasks in the bubblewrap sandbox, with the real bwrap and python3: a hostile main.py cannot read
// the worker's token or the owner's ssh key, cannot write outside its output and scratch folders,
// cannot see other tasks; --no-network cuts it off from a server on loopback; its PID namespace
// hides the worker; cancel ends everything it started.
#include "agent/workeragent.h"
#include "config/workerconfig.h"
#include "prerequisite.h"
#include "runner/taskprocess.h"
#include "runner/venvmanager.h"
#include "sandbox/sandbox.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;
using ddl::TaskLease;

namespace {

struct Outcome
{
    int exitCode = -100;
    QString description;
    QByteArray output;
};

void writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    file.write(content);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The JSON object a task printed on a line of its own that starts with "RESULT ".
QJsonObject resultOf(const QByteArray &output)
{
    for (const QByteArray &line : output.split('\n')) {
        if (line.startsWith("RESULT "))
            return QJsonDocument::fromJson(line.mid(7)).object();
    }
    return {};
}

bool sleepersLeft(const QString &token)
{
    QProcess pgrep;
    pgrep.start(u"pgrep"_s, {u"-f"_s, u"^sleep 300\\.%1"_s.arg(token)});
    pgrep.waitForFinished(5000);
    // pgrep exits 1 when no process matches.
    return pgrep.exitStatus() == QProcess::NormalExit && pgrep.exitCode() == 0;
}

const QByteArray OwnerKey = "-----BEGIN OPENSSH PRIVATE KEY----- fake key of the owner";
const QByteArray WorkerToken = "ddlw_the_worker_token";
const QString DatasetSha = u"d5e1"_s;
const QString BlobSha = u"b10b"_s;

// Every hostile attempt runs in this main.py: ATTEMPT either raises OSError (blocked) or
// returns (allowed, which fails the test).
const char HostileMain[] = R"(import errno, os, sys
WORK = os.environ["WORK_DIR"]
OWNER_HOME = os.environ["OWNER_HOME"]

def attempt():
    ATTEMPT

def main(dataset_dir, model_output_dir):
    try:
        result = attempt()
    except OSError as error:
        print("BLOCKED", errno.errorcode.get(error.errno, error.errno), flush=True)
        return
    print("ALLOWED", repr(result)[:300], flush=True)
    sys.exit(3)
)";

} // namespace

class tst_Sandbox : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void hostileAttemptFails_data();
    void hostileAttemptFails();
    void otherTasksAndTheCacheAreInvisible();
    void outputScratchAndCheckpointAreWritable();
    void pathsAndEnvironmentMatch_data();
    void pathsAndEnvironmentMatch();
    void noNetworkBlocksLoopback_data();
    void noNetworkBlocksLoopback();
    void pidNamespaceHidesTheWorker();
    void limitsAreSet();
    void memoryLimitStopsARunawayTask();
    void multiprocessingWorks();
    void hiddenPathsUnderSystemFolders();
    void onlyGrantedGpuNodesAreShown();
    void configStaysHiddenAfterARenameSave();
    void cancelEndsTheSandboxedTree_data();
    void cancelEndsTheSandboxedTree();
    void venvIsBuiltAndUsedInTheSandbox();

    void probeRefusesWithoutBubblewrap();
    void workerRefusesToStartWithoutSandbox();
    void configSwitches();

private:
    LaunchSpec launchSpec(TaskLease::Kind kind = TaskLease::Kind::Ddl,
                          const SandboxPolicy &policy = {}) const;
    SandboxPolicy policy(bool network = true) const;
    Outcome run(const LaunchSpec &launch, int timeoutMs = 30000);
    Outcome runMain(const QByteArray &mainPy, const SandboxPolicy &policy);

    Sandbox m_sandbox;
    QString m_skipReason;
    std::unique_ptr<QTemporaryDir> m_root;
    QString m_home;
    QString m_workDir;
    TaskLease m_lease;
    TaskPaths m_paths;
};

#define REQUIRE_SANDBOX()                                                                          \
    do {                                                                                           \
        DDL_REQUIRE_PREREQUISITE(m_sandbox.isEnabled(), m_skipReason);                             \
    } while (false)

void tst_Sandbox::initTestCase()
{
    const ddl::Result<Sandbox> probed = Sandbox::probe(Sandbox::defaultBubblewrapPath());
    if (probed)
        m_sandbox = *probed;
    else
        m_skipReason = u"bubblewrap cannot run on this machine: "_s + probed.error().message;
}

void tst_Sandbox::init()
{
    // Outside /tmp, which the sandbox replaces with a tmpfs of its own: the work folder lies
    // in the owner's home, as a worker started by hand would have it.
    m_root = std::make_unique<QTemporaryDir>(QCoreApplication::applicationDirPath() +
                                             u"/tst_sandbox-XXXXXX"_s);
    QVERIFY(m_root->isValid());
    m_home = m_root->filePath(u"home/owner"_s);
    m_workDir = m_home + u"/ddl-work"_s;
    qputenv("HOME", m_home.toLocal8Bit());
    QCOMPARE(QDir::homePath(), m_home);
    writeFile(m_home + u"/.ssh/id_rsa"_s, OwnerKey);
    writeFile(m_workDir + u"/worker.json"_s,
              R"({"server":"https://x","worker_id":"1","worker_token":")" + WorkerToken + "\"}");
    writeFile(m_workDir + u"/cache/blobs/"_s + BlobSha, "package bytes");
    writeFile(m_workDir + u"/cache/datasets/"_s + DatasetSha + u"/iris.csv"_s, "5.1,3.5\n");
    writeFile(m_workDir + u"/tasks/8/code/main.py"_s, "SECRET = 'another task'\n");
    writeFile(m_workDir + u"/tasks/8/output/model.bin"_s, "another task's model");

    m_lease = TaskLease{};
    m_lease.taskId = 7;
    m_lease.jobName = u"hostile"_s;
    m_lease.role = u"worker"_s;
    m_lease.memoryMb = 512;
    // What an attacker would guess or read elsewhere; the test hands it over to make sure.
    m_lease.env = {{u"WORK_DIR"_s, m_workDir},
                   {u"OWNER_HOME"_s, m_home},
                   {u"WORKER_PID"_s, QString::number(QCoreApplication::applicationPid())}};
    m_paths = TaskPaths::forTask(m_workDir + u"/tasks"_s, m_lease.taskId);
    m_paths.datasetDir = m_workDir + u"/cache/datasets/"_s + DatasetSha;
    QVERIFY(QDir().mkpath(m_paths.codeDir));
    QVERIFY(QDir().mkpath(m_paths.outputDir));
    QVERIFY(QDir().mkpath(m_paths.scratchDir));
    writeFile(m_paths.logFile, "[ddl-worker] the worker's log of task 7\n");
}

SandboxPolicy tst_Sandbox::policy(bool network) const
{
    SandboxPolicy policy;
    policy.network = network;
    policy.hiddenPaths = {m_workDir, QDir::homePath()};
    return policy;
}

LaunchSpec tst_Sandbox::launchSpec(TaskLease::Kind kind, const SandboxPolicy &policy) const
{
    TaskLease lease = m_lease;
    lease.kind = kind;
    LaunchSpec launch;
    launch.kind = kind;
    launch.python = defaultPythonInterpreter();
    launch.paths = m_paths;
    launch.environment = taskEnvironment(lease, m_paths, {u"10.0.0.2"_s, 4001, {}, {}});
    launch.sandbox = m_sandbox;
    launch.sandboxSpec = taskSandboxSpec(lease, m_paths, {}, policy);
    return launch;
}

Outcome tst_Sandbox::run(const LaunchSpec &launch, int timeoutMs)
{
    Outcome outcome;
    TaskProcess process;
    connect(&process, &TaskProcess::output, this, [&outcome](const QByteArray &bytes) {
        outcome.output += bytes;
    });
    connect(&process,
            &TaskProcess::finished,
            this,
            [&outcome](int exitCode, const QString &description) {
                outcome.exitCode = exitCode;
                outcome.description = description;
            });
    process.start(launch);
    if (!QTest::qWaitFor([&outcome] { return outcome.exitCode != -100; }, timeoutMs))
        outcome.description = u"timed out"_s;
    return outcome;
}

Outcome tst_Sandbox::runMain(const QByteArray &mainPy, const SandboxPolicy &policy)
{
    writeFile(m_paths.codeDir + u"/main.py"_s, mainPy);
    return run(launchSpec(TaskLease::Kind::Ddl, policy));
}

void tst_Sandbox::hostileAttemptFails_data()
{
    QTest::addColumn<QByteArray>("attempt");
    QTest::newRow("read the worker's token")
        << QByteArray(R"(return open(WORK + "/worker.json").read())");
    QTest::newRow("read the owner's ssh key")
        << QByteArray(R"(return open(OWNER_HOME + "/.ssh/id_rsa").read())");
    QTest::newRow("read ~/.ssh/id_rsa")
        << QByteArray(R"(return open(os.path.expanduser("~/.ssh/id_rsa")).read())");
    QTest::newRow("list the owner's home") << QByteArray(R"(
    names = os.listdir(OWNER_HOME)
    if names == ["ddl-work"]:
        raise PermissionError(errno.EACCES, "only the path down to the task is there")
    return names)");
    QTest::newRow("write into code/")
        << QByteArray(R"(return open(os.getcwd() + "/injected.py", "w").write("x"))");
    QTest::newRow("change main.py") << QByteArray(R"(return open("main.py", "a").write("#"))");
    QTest::newRow("write into the dataset")
        << QByteArray(R"(return open(os.environ["DDL_DATASET_DIR"] + "/iris.csv", "w"))");
    QTest::newRow("write into the work folder")
        << QByteArray(R"(return open(WORK + "/evil.txt", "w").write("x"))");
    QTest::newRow("replace worker.json")
        << QByteArray(R"(return open(WORK + "/worker.json", "w").write("{}"))");
    QTest::newRow("write the worker's task log")
        << QByteArray(R"(return open(WORK + "/tasks/7/task.log", "a").write("forged"))");
    QTest::newRow("replace the runner")
        << QByteArray(R"(return open(WORK + "/tasks/7/ddl_runner.py", "a").write("#"))");
    QTest::newRow("read another task's code")
        << QByteArray(R"(return open(WORK + "/tasks/8/code/main.py").read())");
    QTest::newRow("write into another task's output")
        << QByteArray(R"(return open(WORK + "/tasks/8/output/model.bin", "w").write("x"))");
    QTest::newRow("read the blob cache")
        << QByteArray(R"(return open(WORK + "/cache/blobs/b10b").read())");
    QTest::newRow("write into /usr") << QByteArray(R"(return open("/usr/evil", "w"))");
    QTest::newRow("write at the root") << QByteArray(R"(return open("/evil", "w"))");
}

void tst_Sandbox::hostileAttemptFails()
{
    REQUIRE_SANDBOX();
    QFETCH(QByteArray, attempt);
    QByteArray mainPy = HostileMain;
    mainPy.replace("ATTEMPT", attempt);
    const Outcome outcome = runMain(mainPy, policy());
    QVERIFY2(outcome.output.contains("BLOCKED"), outcome.output.constData());
    QCOMPARE(outcome.exitCode, 0);

    // Nothing changed outside.
    QCOMPARE(QDir(m_paths.codeDir).entryList(QDir::Files), QStringList{u"main.py"_s});
    QCOMPARE(readFile(m_paths.codeDir + u"/main.py"_s), mainPy);
    QVERIFY(!QFile::exists(m_workDir + u"/evil.txt"_s));
    QVERIFY(readFile(m_workDir + u"/worker.json"_s).contains(WorkerToken));
    QCOMPARE(readFile(m_paths.logFile), QByteArray("[ddl-worker] the worker's log of task 7\n"));
    QCOMPARE(readFile(m_workDir + u"/tasks/8/output/model.bin"_s),
             QByteArray("another task's model"));
    QCOMPARE(readFile(m_paths.datasetDir + u"/iris.csv"_s), QByteArray("5.1,3.5\n"));
    QVERIFY(!outcome.output.contains(OwnerKey));
    QVERIFY(!outcome.output.contains(WorkerToken));
}

void tst_Sandbox::otherTasksAndTheCacheAreInvisible()
{
    REQUIRE_SANDBOX();
    const Outcome outcome = runMain(R"(import json, os
def main(dataset_dir, model_output_dir):
    work = os.environ["WORK_DIR"]
    seen = {}
    for sub in ["", "/tasks", "/tasks/7", "/cache", "/cache/datasets"]:
        seen[sub] = sorted(os.listdir(work + sub))
    print("RESULT " + json.dumps(seen))
)",
                                    policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject seen = resultOf(outcome.output);
    auto names = [&seen](const char *key) {
        QStringList list;
        for (const QJsonValue &value : seen.value(QLatin1StringView(key)).toArray())
            list << value.toString();
        return list;
    };
    // Only the path down to the task's own folders and its dataset: no worker.json, venvs or
    // blobs, no other task.
    QCOMPARE(names(""), (QStringList{u"cache"_s, u"tasks"_s}));
    QCOMPARE(names("/tasks"), QStringList{u"7"_s});
    QCOMPARE(names("/tasks/7"),
             (QStringList{u"bin"_s, u"checkpoint"_s, u"code"_s, u"ddl_runner.py"_s, u"output"_s,
                          u"scratch"_s}));
    QCOMPARE(names("/cache"), QStringList{u"datasets"_s});
    QCOMPARE(names("/cache/datasets"), QStringList{DatasetSha});
}

void tst_Sandbox::outputScratchAndCheckpointAreWritable()
{
    REQUIRE_SANDBOX();
    const QString privateName = u"ddl-tst-sandbox-%1"_s.arg(QCoreApplication::applicationPid());
    m_lease.env.insert(u"PRIVATE_NAME"_s, privateName);
    const Outcome outcome = runMain(R"(import json, os, tempfile
def main(dataset_dir, model_output_dir):
    with open(os.path.join(model_output_dir, "model.txt"), "w") as f:
        f.write("trained on " + open(os.path.join(dataset_dir, "iris.csv")).read())
    fd, scratch_file = tempfile.mkstemp(prefix="tmp-")
    os.write(fd, b"scratch")
    os.close(fd)
    with open(os.path.expanduser("~/.cache-marker"), "w") as f:
        f.write("home")
    with open(os.path.join(os.environ["DDL_CHECKPOINT_DIR"], "epoch.txt"), "w") as f:
        f.write("3")
    with open("/tmp/" + os.environ["PRIVATE_NAME"], "w") as f:
        f.write("private tmp")
    print("RESULT " + json.dumps({"home": os.environ["HOME"], "tmpdir": os.environ["TMPDIR"],
                                  "scratch_file": scratch_file}))
)",
                                    policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    QCOMPARE(readFile(m_paths.outputDir + u"/model.txt"_s), QByteArray("trained on 5.1,3.5\n"));
    const QJsonObject result = resultOf(outcome.output);
    QCOMPARE(result.value(u"home"_s).toString(), m_paths.scratchDir);
    QCOMPARE(result.value(u"tmpdir"_s).toString(), m_paths.scratchDir);
    QVERIFY(result.value(u"scratch_file"_s).toString().startsWith(m_paths.scratchDir + u'/'));
    QCOMPARE(readFile(result.value(u"scratch_file"_s).toString()), QByteArray("scratch"));
    QCOMPARE(readFile(m_paths.scratchDir + u"/.cache-marker"_s), QByteArray("home"));
    QCOMPARE(readFile(m_paths.checkpointDir + u"/epoch.txt"_s), QByteArray("3"));
    // /tmp is the sandbox's own.
    QVERIFY(!QFile::exists(u"/tmp/"_s + privateName));
}

void tst_Sandbox::pathsAndEnvironmentMatch_data()
{
    QTest::addColumn<bool>("openpai");
    QTest::newRow("ddl runner") << false;
    QTest::newRow("openpai command") << true;
}

void tst_Sandbox::pathsAndEnvironmentMatch()
{
    REQUIRE_SANDBOX();
    QFETCH(bool, openpai);
    // Both report the paths they were given, and whether those exist inside.
    writeFile(m_paths.codeDir + u"/report.py"_s, R"(import json, os
def emit(args):
    env = {k: v for k, v in os.environ.items() if k.startswith(("PAI_", "DDL_", "CUDA_"))}
    print("RESULT " + json.dumps({
        "cwd": os.getcwd(), "env": env, "args": args,
        "dataset_exists": os.path.isdir(env["DDL_DATASET_DIR"]),
        "output_exists": os.path.isdir(env["DDL_OUTPUT_DIR"]),
        "pythonpath": os.environ.get("PYTHONPATH", "")}))
)");
    writeFile(m_paths.codeDir + u"/main.py"_s,
              "import report\n\ndef main(dataset_dir, model_output_dir):\n"
              "    report.emit([dataset_dir, model_output_dir])\n");
    LaunchSpec launch =
        launchSpec(openpai ? TaskLease::Kind::OpenPai : TaskLease::Kind::Ddl, policy());
    launch.command = u"%1 -c 'import sys, report; report.emit(sys.argv[1:])' \"$DDL_DATASET_DIR\" "
                     u"\"$DDL_OUTPUT_DIR\""_s.arg(defaultPythonInterpreter());
    const Outcome outcome = run(launch);
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject result = resultOf(outcome.output);
    QVERIFY2(!result.isEmpty(), outcome.output.constData());
    QCOMPARE(result.value(u"cwd"_s).toString(), m_paths.codeDir);
    const QJsonObject env = result.value(u"env"_s).toObject();
    QCOMPARE(env.value(u"DDL_DATASET_DIR"_s).toString(), m_paths.datasetDir);
    QCOMPARE(env.value(u"DDL_OUTPUT_DIR"_s).toString(), m_paths.outputDir);
    QCOMPARE(env.value(u"DDL_TASK_ID"_s).toString(), u"7"_s);
    QCOMPARE(env.value(u"PAI_JOB_NAME"_s).toString(), u"hostile"_s);
    QCOMPARE(env.value(u"PAI_TASK_ROLE_NAME"_s).toString(), u"worker"_s);
    QCOMPARE(env.value(u"PAI_CURRENT_CONTAINER_IP"_s).toString(), u"10.0.0.2"_s);
    QCOMPARE(env.value(u"PAI_CURRENT_CONTAINER_PORT"_s).toString(), u"4001"_s);
    QCOMPARE(env.value(u"CUDA_VISIBLE_DEVICES"_s).toString(), QString());
    QCOMPARE(result.value(u"args"_s).toArray(),
             (QJsonArray{m_paths.datasetDir, m_paths.outputDir}));
    QVERIFY(result.value(u"dataset_exists"_s).toBool());
    QVERIFY(result.value(u"output_exists"_s).toBool());
    QVERIFY(result.value(u"pythonpath"_s).toString().startsWith(m_paths.codeDir));
}

void tst_Sandbox::noNetworkBlocksLoopback_data()
{
    QTest::addColumn<bool>("network");
    QTest::newRow("network allowed") << true;
    QTest::newRow("--no-network") << false;
}

void tst_Sandbox::noNetworkBlocksLoopback()
{
    REQUIRE_SANDBOX();
    QFETCH(bool, network);
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    m_lease.env.insert(u"SERVER_PORT"_s, QString::number(server.serverPort()));
    const Outcome outcome = runMain(R"(import os, socket
def main(dataset_dir, model_output_dir):
    try:
        socket.create_connection(("127.0.0.1", int(os.environ["SERVER_PORT"])), timeout=5).close()
        print("CONNECTED")
    except OSError as error:
        print("NO CONNECTION", error)
)",
                                    policy(network));
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    if (network) {
        QVERIFY2(outcome.output.contains("CONNECTED"), outcome.output.constData());
        QVERIFY(server.hasPendingConnections() || server.waitForNewConnection(5000));
    } else {
        QVERIFY2(outcome.output.contains("NO CONNECTION"), outcome.output.constData());
        QVERIFY(!server.hasPendingConnections() && !server.waitForNewConnection(200));
    }
}

void tst_Sandbox::pidNamespaceHidesTheWorker()
{
    REQUIRE_SANDBOX();
    const Outcome outcome = runMain(R"(import json, os
def main(dataset_dir, model_output_dir):
    worker = int(os.environ["WORKER_PID"])
    try:
        os.kill(worker, 0)
        signal = "delivered"
    except ProcessLookupError:
        signal = "no such process"
    pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    print("RESULT " + json.dumps({"pid": os.getpid(), "pids": pids, "signal": signal,
                                  "worker_visible": os.path.exists("/proc/%d" % worker)}))
)",
                                    policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject result = resultOf(outcome.output);
    QCOMPARE(result.value(u"signal"_s).toString(), u"no such process"_s);
    QCOMPARE(result.value(u"worker_visible"_s).toBool(), false);
    // bubblewrap's init is 1 and the task 2; nothing of the machine is listed.
    QCOMPARE(result.value(u"pid"_s).toInt(), 2);
    const QJsonArray pids = result.value(u"pids"_s).toArray();
    QVERIFY2(pids.size() <= 3, QJsonDocument(pids).toJson().constData());
    for (const QJsonValue &pid : pids)
        QVERIFY(pid.toInt() < 10);
}

void tst_Sandbox::limitsAreSet()
{
    REQUIRE_SANDBOX();
    const QByteArray mainPy = R"(import json, resource
def main(dataset_dir, model_output_dir):
    print("RESULT " + json.dumps({"data": resource.getrlimit(resource.RLIMIT_DATA)[0],
                                  "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0]}))
)";
    const Outcome outcome = runMain(mainPy, policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject result = resultOf(outcome.output);
    // 512 MB asked: twice that plus 1 GiB.
    QCOMPARE(result.value(u"data"_s).toInteger(), qint64(2 * 512 + 1024) * 1024 * 1024);
    struct rlimit own;
    QCOMPARE(::getrlimit(RLIMIT_NPROC, &own), 0);
    const qint64 nproc = result.value(u"nproc"_s).toInteger();
    if (own.rlim_max == RLIM_INFINITY || qint64(own.rlim_max) > nproc) {
        QVERIFY2(nproc > TaskProcessAllowance && nproc < TaskProcessAllowance + 100000,
                 qPrintable(QString::number(nproc)));
    }

    // A GPU task gets no memory limit: CUDA reserves more address space than it uses.
    m_lease.gpus = 1;
    const Outcome gpu = runMain(mainPy, policy());
    QVERIFY2(gpu.exitCode == 0, gpu.output.constData());
    struct rlimit data;
    QCOMPARE(::getrlimit(RLIMIT_DATA, &data), 0);
    const qint64 expected = data.rlim_cur == RLIM_INFINITY ? -1 : qint64(data.rlim_cur);
    QCOMPARE(resultOf(gpu.output).value(u"data"_s).toInteger(), expected);
}

void tst_Sandbox::memoryLimitStopsARunawayTask()
{
    REQUIRE_SANDBOX();
    m_lease.memoryMb = 256; // RLIMIT_DATA 1.5 GiB
    const Outcome outcome = runMain(R"(
def main(dataset_dir, model_output_dir):
    try:
        block = bytearray(3 * 1024 ** 3)
        print("ALLOCATED", len(block))
    except MemoryError:
        print("MEMORY ERROR")
    small = bytearray(64 * 1024 ** 2)
    print("small block", len(small))
)",
                                    policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    QVERIFY2(outcome.output.contains("MEMORY ERROR"), outcome.output.constData());
    QVERIFY(outcome.output.contains("small block 67108864"));
}

void tst_Sandbox::multiprocessingWorks()
{
    REQUIRE_SANDBOX();
    // Data loaders fork workers and share memory through /dev/shm semaphores.
    const Outcome outcome = runMain(R"(import multiprocessing
def square(x):
    return x * x
def main(dataset_dir, model_output_dir):
    with multiprocessing.Pool(2) as pool:
        print("squares", sum(pool.map(square, range(10))))
    lock = multiprocessing.Lock()
    with lock:
        print("locked")
)",
                                    policy());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    QVERIFY2(outcome.output.contains("squares 285"), outcome.output.constData());
    QVERIFY(outcome.output.contains("locked"));
}

void tst_Sandbox::hiddenPathsUnderSystemFolders()
{
    REQUIRE_SANDBOX();
    // A work folder in /opt or a worker.yaml in /etc would be inside a system folder that the
    // sandbox shows; hidden paths cover them. Shown here with real files of /etc.
    DDL_REQUIRE_PREREQUISITE(QFileInfo(u"/etc/hostname"_s).isFile() &&
                                 QFileInfo(u"/etc/ssl"_s).isDir(),
                             u"needs /etc/hostname and /etc/ssl"_s);
    SandboxPolicy hiding = policy();
    hiding.hiddenPaths << u"/etc/hostname"_s << u"/etc/ssl"_s;
    const Outcome outcome = runMain(R"(import json, os
def main(dataset_dir, model_output_dir):
    try:
        open("/etc/ssl/planted", "w")
        planted = True
    except OSError:
        planted = False
    try:
        hostname = open("/etc/hostname").read()
    except OSError as error:
        hostname = "unreadable"
    print("RESULT " + json.dumps({"hostname": hostname,
                                  "ssl": os.listdir("/etc/ssl"), "planted": planted,
                                  "etc": os.path.isfile("/etc/passwd")}))
)",
                                    hiding);
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject result = resultOf(outcome.output);
    // /dev/null lies over the file, on a mount without devices: nothing to read.
    QCOMPARE(result.value(u"hostname"_s).toString(), u"unreadable"_s);
    QCOMPARE(result.value(u"ssl"_s).toArray(), QJsonArray());
    QCOMPARE(result.value(u"planted"_s).toBool(), false);
    QCOMPARE(result.value(u"etc"_s).toBool(), true);
}

void tst_Sandbox::onlyGrantedGpuNodesAreShown()
{
    REQUIRE_SANDBOX();
    // No GPU here: a folder of plain files stands for /dev (the spec's devDir seam). Four GPUs,
    // the task is granted the one with minor number 2; CUDA_VISIBLE_DEVICES is its own to unset.
    const QString fakeDev = m_root->filePath(u"fake-dev"_s);
    QVERIFY(QDir().mkpath(fakeDev + u"/nvidia-caps"_s));
    for (const QString &node : {u"nvidia0"_s, u"nvidia1"_s, u"nvidia2"_s, u"nvidia3"_s,
                                u"nvidiactl"_s, u"nvidia-uvm"_s})
        writeFile(fakeDev + u'/' + node, node.toUtf8());
    writeFile(m_paths.codeDir + u"/main.py"_s, R"(import json, os
def main(dataset_dir, model_output_dir):
    nodes = sorted(n for n in os.listdir("/dev") if n.startswith("nvidia"))
    print("RESULT " + json.dumps({"nodes": nodes, "two": open("/dev/nvidia2").read()}))
)");
    LaunchSpec launch = launchSpec(TaskLease::Kind::Ddl, policy());
    launch.sandboxSpec.gpuDevices = true;
    launch.sandboxSpec.gpuMinors = {2};
    launch.sandboxSpec.devDir = fakeDev;
    const Outcome outcome = run(launch);
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const QJsonObject result = resultOf(outcome.output);
    QCOMPARE(result.value(u"nodes"_s).toArray(),
             QJsonArray({u"nvidia-caps"_s, u"nvidia-uvm"_s, u"nvidia2"_s, u"nvidiactl"_s}));
    QCOMPARE(result.value(u"two"_s).toString(), u"nvidia2"_s);
}

void tst_Sandbox::configStaysHiddenAfterARenameSave()
{
    REQUIRE_SANDBOX();
    // A worker.yaml in a folder of its own under /etc, which the sandbox shows.
    const QString folder = u"/etc/ddl-tst-sandbox-%1"_s.arg(QCoreApplication::applicationPid());
    DDL_REQUIRE_PREREQUISITE(QDir().mkpath(folder), u"needs to write in /etc (root)"_s);
    const auto cleanup = qScopeGuard([folder] { QDir(folder).removeRecursively(); });
    const QString config = folder + u"/worker.yaml"_s;
    writeFile(config, "token: first-secret-token\n");
    QCOMPARE(Sandbox::configHidingPath(config), folder);
    QCOMPARE(Sandbox::configHidingPath(u"/etc/ddl-worker.yaml"_s), u"/etc/ddl-worker.yaml"_s);
    SandboxPolicy hiding = policy();
    hiding.hiddenPaths << Sandbox::configHidingPath(config);
    LaunchSpec launch = launchSpec(TaskLease::Kind::OpenPai, hiding);
    launch.command = u"echo ready; sleep 2; ls -a %1; cat %1/worker.yaml %1/worker.yaml~; "
                     u"echo done"_s.arg(folder);
    TaskProcess process;
    QByteArray output;
    connect(&process, &TaskProcess::output, this, [&](const QByteArray &b) { output += b; });
    process.start(launch);
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("ready"), 10000);
    // The owner's editor saves by rename while the task runs, keeping a backup.
    writeFile(config + u".new"_s, "token: second-secret-token\n");
    QVERIFY(QFile::rename(config, config + u'~'));
    QVERIFY(QFile::rename(config + u".new"_s, config));
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("done"), 15000);
    QVERIFY2(!output.contains("secret-token"), output.constData());
}

void tst_Sandbox::cancelEndsTheSandboxedTree_data()
{
    QTest::addColumn<bool>("ignoresSigterm");
    QTest::newRow("ends on SIGTERM") << false;
    QTest::newRow("ignores SIGTERM") << true;
}

void tst_Sandbox::cancelEndsTheSandboxedTree()
{
    REQUIRE_SANDBOX();
    QFETCH(bool, ignoresSigterm);
    const QString token =
        QString::number(QCoreApplication::applicationPid()) + (ignoresSigterm ? u"1"_s : u"2"_s);
    LaunchSpec launch = launchSpec(TaskLease::Kind::OpenPai, policy());
    // Children, one in a session of its own (out of the task's process group), then wait.
    launch.command =
        (ignoresSigterm ? u"trap '' TERM; "_s : u"trap 'echo got SIGTERM; exit 7' TERM; "_s) +
        u"sleep 300.%1 & sleep 300.%1 & setsid sleep 300.%1 & "
        u"echo ready; while true; do sleep 0.1; done"_s.arg(token);
    TaskProcess process;
    QByteArray output;
    int exitCode = -100;
    connect(&process, &TaskProcess::output, this, [&](const QByteArray &b) { output += b; });
    connect(&process, &TaskProcess::finished, this, [&](int code) { exitCode = code; });
    process.start(launch);
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("ready"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(sleepersLeft(token), 5000);

    process.terminate(1000);
    QTRY_VERIFY_WITH_TIMEOUT(exitCode != -100, 10000);
    if (ignoresSigterm) {
        QVERIFY(!output.contains("got SIGTERM"));
    } else {
        // The task itself got SIGTERM and ended in its own time.
        QVERIFY2(output.contains("got SIGTERM"), output.constData());
        QCOMPARE(exitCode, 7);
    }
    QTRY_VERIFY_WITH_TIMEOUT(!sleepersLeft(token), 5000);
}

void tst_Sandbox::venvIsBuiltAndUsedInTheSandbox()
{
    REQUIRE_SANDBOX();
    QProcess probe;
    probe.start(defaultPythonInterpreter(), {u"-c"_s, u"import venv, ensurepip, numpy"_s});
    DDL_REQUIRE_PREREQUISITE(probe.waitForFinished(30000) && probe.exitCode() == 0,
                             u"needs python3 with venv, ensurepip and numpy (python3-venv, "
                             u"python3-numpy)"_s);

    VenvManager venvs(m_workDir + u"/venvs"_s, defaultPythonInterpreter());
    venvs.setSandbox(m_sandbox, policy());
    writeFile(m_paths.codeDir + u"/requirements.txt"_s, "numpy\n");
    QByteArray pipOutput;
    std::optional<ddl::Result<QString>> venv;
    venvs.prepare(
        m_paths.codeDir + u"/requirements.txt"_s,
        this,
        [&pipOutput](const QByteArray &bytes) { pipOutput += bytes; },
        [&venv](const ddl::Result<QString> &result) { venv = result; });
    QTRY_VERIFY_WITH_TIMEOUT(venv.has_value(), 240000);
    QVERIFY2(venv->ok(), pipOutput.constData());

    writeFile(m_paths.codeDir + u"/main.py"_s, R"(import os, sys, numpy
def main(dataset_dir, model_output_dir):
    print("prefix", sys.prefix)
    print("numpy", numpy.__version__)
    try:
        open(os.path.join(sys.prefix, "planted"), "w")
        print("venv writable")
    except OSError:
        print("venv read-only")
)");
    LaunchSpec launch = launchSpec();
    launch.python = VenvManager::pythonOf(**venv);
    launch.environment = taskEnvironment(m_lease, m_paths, {u"10.0.0.2"_s, 4001, {}, **venv});
    launch.sandboxSpec = taskSandboxSpec(m_lease, m_paths, **venv, policy());
    const Outcome outcome = run(launch);
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    QVERIFY2(outcome.output.contains(QByteArray("prefix " + venv->value().toUtf8())),
             outcome.output.constData());
    QVERIFY(outcome.output.contains("numpy "));
    QVERIFY(outcome.output.contains("venv read-only"));
}

void tst_Sandbox::probeRefusesWithoutBubblewrap()
{
    const ddl::Result<Sandbox> missing = Sandbox::probe(m_root->filePath(u"no/bwrap"_s));
    QVERIFY(!missing);
    const QString message = missing.error().message;
    QVERIFY2(message.contains(u"is not installed"_s), qPrintable(message));
    QVERIFY2(message.contains(u"apt install bubblewrap"_s), qPrintable(message));
    QVERIFY2(message.contains(u"--no-sandbox"_s), qPrintable(message));

    // A bwrap that does not work (here: one that always fails) is refused as well.
    const QString broken = m_root->filePath(u"bwrap"_s);
    writeFile(broken,
              "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
              "exit 1\n");
    QFile::setPermissions(broken, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    const ddl::Result<Sandbox> failing = Sandbox::probe(broken);
    QVERIFY(!failing);
    QVERIFY2(failing.error().message.contains(u"does not work here"_s),
             qPrintable(failing.error().message));
    QVERIFY(failing.error().message.contains(u"No permissions to create new namespace"_s));
    QVERIFY(failing.error().message.contains(u"--no-sandbox"_s));
}

void tst_Sandbox::workerRefusesToStartWithoutSandbox()
{
    WorkerConfig config;
    config.serverUrl = QUrl(u"https://127.0.0.1:1"_s);
    config.enrollToken = u"ddle_token"_s;
    config.workDir = m_root->filePath(u"refusing-worker"_s);
    config.gpus = 0;
    config.bubblewrapPath = m_root->filePath(u"no/bwrap"_s);
    config.applyDefaults();
    {
        WorkerAgent agent(config);
        const ddl::Status started = agent.start();
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"--no-sandbox"_s),
                 qPrintable(started.error().message));
        // It refused before making anything.
        QVERIFY(!QFileInfo::exists(config.workDir));
    }
    config.sandbox = false;
    WorkerAgent agent(config);
    const ddl::Status started = agent.start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    agent.shutdown();
}

void tst_Sandbox::configSwitches()
{
    const auto yaml = WorkerConfig::fromYaml("no_network: true\nno_sandbox: false\n", u"w.yaml"_s);
    QVERIFY(yaml.ok());
    QCOMPARE(yaml->network, false);
    QCOMPARE(yaml->sandbox, true);
    const auto defaults = WorkerConfig::fromYaml("slots: 1\n", u"w.yaml"_s);
    QVERIFY(defaults.ok());
    QCOMPARE(defaults->network, true);
    QCOMPARE(defaults->sandbox, true);
    const auto wrong = WorkerConfig::fromYaml("no_network: maybe\n", u"w.yaml"_s);
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().message.contains(u"'no_network' must be true or false"_s),
             qPrintable(wrong.error().message));

    auto parse = [this](const QStringList &flags) {
        QCommandLineParser parser;
        WorkerConfig::addOptions(parser);
        const QStringList args = QStringList{u"ddl-worker"_s,
                                             u"--server"_s,
                                             u"https://x:1"_s,
                                             u"--work-dir"_s,
                                             m_root->filePath(u"w"_s)} +
                                 flags;
        if (!parser.parse(args))
            return ddl::Result<WorkerConfig>(ddl::Error::make(ddl::ErrorCode::InvalidArgument, parser.errorText()));
        return WorkerConfig::fromParser(parser);
    };
    const auto plain = parse({});
    QVERIFY(plain.ok());
    QVERIFY(plain->sandbox && plain->network);
    const auto noNetwork = parse({u"--no-network"_s});
    QVERIFY(noNetwork.ok());
    QVERIFY(noNetwork->sandbox && !noNetwork->network);
    const auto noSandbox = parse({u"--no-sandbox"_s});
    QVERIFY(noSandbox.ok());
    QVERIFY(!noSandbox->sandbox);
    const auto both = parse({u"--no-sandbox"_s, u"--no-network"_s});
    QVERIFY(!both);
    QVERIFY2(both.error().message.contains(u"--no-network needs the sandbox"_s),
             qPrintable(both.error().message));
}

QTEST_GUILESS_MAIN(tst_Sandbox)
#include "tst_sandbox.moc"
