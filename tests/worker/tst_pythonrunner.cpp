// The DDL runner and the OpenPAI command, run as real processes (python3, /bin/sh).
#include "config/workerconfig.h"
#include "runner/taskprocess.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

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
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

} // namespace

class tst_PythonRunner : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void passesDirsAndEnvironment();
    void exceptionPrintsTracebackAndExitsOne();
    void systemExitKeepsItsCode();
    void missingMainFunction();
    void entryPointCallsModuleFunction();
    void outputStreamsWhileRunning();
    void openpaiCommandRunsInCodeFolder();
    void openpaiCommandGetsACleanEnvironment();
    void missingInterpreterFailsToStart();

private:
    LaunchSpec spec(TaskLease::Kind kind = TaskLease::Kind::Ddl) const;
    Outcome run(const LaunchSpec &launch, int timeoutMs = 30000);

    std::unique_ptr<QTemporaryDir> m_dir;
    TaskLease m_lease;
    TaskPaths m_paths;
};

void tst_PythonRunner::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_lease = TaskLease{};
    m_lease.taskId = 17;
    m_lease.jobName = u"iris"_s;
    m_lease.role = u"worker"_s;
    m_lease.roleIndex = 1;
    m_lease.env = {{u"PAI_JOB_NAME"_s, u"iris"_s},
                   {u"PAI_TASK_ROLE_NAME"_s, u"worker"_s},
                   {u"PAI_TASK_ROLE_INDEX"_s, u"1"_s},
                   {u"PAI_TASKS_NUM"_s, u"2"_s},
                   {u"PAI_TASK_ROLES_NUM"_s, u"1"_s},
                   {u"PAI_TASK_ROLE_0_HOST_LIST"_s, u"10.0.0.1:4000,10.0.0.2:4001"_s}};
    m_paths = TaskPaths::forTask(m_dir->path(), m_lease.taskId);
    QVERIFY(QDir().mkpath(m_paths.codeDir));
    QVERIFY(QDir().mkpath(m_paths.outputDir));
    QVERIFY(QDir().mkpath(m_paths.datasetDir));
}

LaunchSpec tst_PythonRunner::spec(TaskLease::Kind kind) const
{
    LaunchSpec launch;
    launch.kind = kind;
    launch.python = defaultPythonInterpreter();
    launch.paths = m_paths;
    launch.environment = taskEnvironment(m_lease, m_paths, {u"10.0.0.2"_s, 4001, {1, 3}, {}});
    return launch;
}

Outcome tst_PythonRunner::run(const LaunchSpec &launch, int timeoutMs)
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

void tst_PythonRunner::passesDirsAndEnvironment()
{
    writeFile(m_paths.codeDir + u"/helper.py"_s, "GREETING = 'hello from the package'\n");
    writeFile(m_paths.codeDir + u"/main.py"_s, R"(
import json, os, sys
import helper

def main(dataset_dir, model_output_dir):
    info = {
        "dataset_dir": dataset_dir,
        "output_dir": model_output_dir,
        "cwd": os.getcwd(),
        "path0": sys.path[0],
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("PAI_", "DDL_", "CUDA_", "PYTHONPATH"))},
    }
    with open(os.path.join(model_output_dir, "info.json"), "w") as f:
        json.dump(info, f)
    print(helper.GREETING)
)");
    const Outcome outcome = run(spec());
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    QVERIFY(outcome.output.contains("hello from the package"));

    QFile infoFile(m_paths.outputDir + u"/info.json"_s);
    QVERIFY(infoFile.open(QIODevice::ReadOnly));
    const QJsonObject info = QJsonDocument::fromJson(infoFile.readAll()).object();
    QCOMPARE(info.value(u"dataset_dir"_s).toString(), m_paths.datasetDir);
    QCOMPARE(info.value(u"output_dir"_s).toString(), m_paths.outputDir);
    QCOMPARE(info.value(u"cwd"_s).toString(), m_paths.codeDir);
    QCOMPARE(info.value(u"path0"_s).toString(), m_paths.codeDir);
    const QJsonObject env = info.value(u"env"_s).toObject();
    QCOMPARE(env.value(u"PAI_JOB_NAME"_s).toString(), u"iris"_s);
    QCOMPARE(env.value(u"PAI_TASK_ROLE_NAME"_s).toString(), u"worker"_s);
    QCOMPARE(env.value(u"PAI_TASK_ROLE_INDEX"_s).toString(), u"1"_s);
    QCOMPARE(env.value(u"PAI_TASKS_NUM"_s).toString(), u"2"_s);
    QCOMPARE(env.value(u"PAI_TASK_ROLES_NUM"_s).toString(), u"1"_s);
    QCOMPARE(env.value(u"PAI_TASK_ROLE_0_HOST_LIST"_s).toString(),
             u"10.0.0.1:4000,10.0.0.2:4001"_s);
    QCOMPARE(env.value(u"PAI_CURRENT_CONTAINER_IP"_s).toString(), u"10.0.0.2"_s);
    QCOMPARE(env.value(u"PAI_CURRENT_CONTAINER_PORT"_s).toString(), u"4001"_s);
    QCOMPARE(env.value(u"DDL_DATASET_DIR"_s).toString(), m_paths.datasetDir);
    QCOMPARE(env.value(u"DDL_OUTPUT_DIR"_s).toString(), m_paths.outputDir);
    QCOMPARE(env.value(u"CUDA_VISIBLE_DEVICES"_s).toString(), u"1,3"_s);
    QVERIFY(env.value(u"PYTHONPATH"_s).toString().startsWith(m_paths.codeDir));
}

void tst_PythonRunner::exceptionPrintsTracebackAndExitsOne()
{
    writeFile(m_paths.codeDir + u"/main.py"_s, R"(
def load(path):
    raise ValueError("cannot read " + path)

def main(dataset_dir, model_output_dir):
    print("starting")
    load("weights.bin")
)");
    const Outcome outcome = run(spec());
    QCOMPARE(outcome.exitCode, 1);
    QVERIFY(outcome.output.contains("starting"));
    QVERIFY2(outcome.output.contains("Traceback (most recent call last)"),
             outcome.output.constData());
    QVERIFY(outcome.output.contains("ValueError: cannot read weights.bin"));
    QVERIFY(outcome.output.contains("main.py\", line 3, in load"));
    // The traceback starts at the user's code: the runner's frame is left out.
    QVERIFY2(!outcome.output.contains("ddl_runner.py"), outcome.output.constData());
}

void tst_PythonRunner::systemExitKeepsItsCode()
{
    writeFile(m_paths.codeDir + u"/main.py"_s, "import sys\ndef main(d, o):\n    sys.exit(3)\n");
    QCOMPARE(run(spec()).exitCode, 3);
}

void tst_PythonRunner::missingMainFunction()
{
    writeFile(m_paths.codeDir + u"/main.py"_s, "def train(d, o):\n    pass\n");
    const Outcome outcome = run(spec());
    QCOMPARE(outcome.exitCode, 1);
    QVERIFY(outcome.output.contains("main.py defines no function main(dataset_dir, "
                                    "model_output_dir)"));

    QFile::remove(m_paths.codeDir + u"/main.py"_s);
    const Outcome noFile = run(spec());
    QCOMPARE(noFile.exitCode, 1);
    QVERIFY(noFile.output.contains("the package has no main.py"));
}

// ElasticDL's --model_def: DDL_ENTRY_POINT=module.function is called instead of main.main, with
// the same two folders; no main.py is needed.
void tst_PythonRunner::entryPointCallsModuleFunction()
{
    QVERIFY(QDir().mkpath(m_paths.codeDir + u"/zoo/iris"_s));
    writeFile(m_paths.codeDir + u"/zoo/__init__.py"_s, "");
    writeFile(m_paths.codeDir + u"/zoo/iris/__init__.py"_s, "");
    writeFile(m_paths.codeDir + u"/zoo/iris/model.py"_s,
              "import os\n"
              "def train(dataset_dir, model_output_dir):\n"
              "    print('train called with', os.path.basename(dataset_dir),\n"
              "          os.path.basename(model_output_dir))\n");
    m_lease.env.insert(u"DDL_ENTRY_POINT"_s, u"zoo.iris.model.train"_s);
    const Outcome outcome = run(spec());
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.output.contains("train called with dataset output"),
             outcome.output.constData());

    m_lease.env.insert(u"DDL_ENTRY_POINT"_s, u"zoo.iris.model.evaluate"_s);
    const Outcome missing = run(spec());
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.output.contains("zoo/iris/model.py defines no function evaluate("),
             missing.output.constData());

    m_lease.env.insert(u"DDL_ENTRY_POINT"_s, u"train"_s);
    const Outcome bare = run(spec());
    QCOMPARE(bare.exitCode, 1);
    QVERIFY2(bare.output.contains("is not module.function"), bare.output.constData());
}

void tst_PythonRunner::outputStreamsWhileRunning()
{
    writeFile(m_paths.codeDir + u"/main.py"_s, R"(
import os, time
def main(d, o):
    print("first", flush=False)
    while not os.path.exists(os.path.join(o, "go")):
        time.sleep(0.05)
    print("second")
)");
    TaskProcess process;
    QByteArray output;
    bool finished = false;
    connect(&process, &TaskProcess::output, this, [&output](const QByteArray &bytes) {
        output += bytes;
    });
    connect(&process, &TaskProcess::finished, this, [&finished] { finished = true; });
    process.start(spec());
    // python -u: "first" arrives while main() is still waiting.
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("first"), 20000);
    QVERIFY(!finished);
    writeFile(m_paths.outputDir + u"/go"_s, "");
    QTRY_VERIFY_WITH_TIMEOUT(finished, 20000);
    QVERIFY(output.contains("second"));
}

void tst_PythonRunner::openpaiCommandRunsInCodeFolder()
{
    LaunchSpec launch = spec(TaskLease::Kind::OpenPai);
    launch.command = uR"(echo "role=$PAI_TASK_ROLE_NAME index=$PAI_TASK_ROLE_INDEX"; pwd; )"
                     uR"(echo "to stderr" >&2; echo out > "$DDL_OUTPUT_DIR/x"; exit 4)"_s;
    const Outcome outcome = run(launch);
    QCOMPARE(outcome.exitCode, 4);
    QVERIFY(outcome.output.contains("role=worker index=1"));
    QVERIFY(outcome.output.contains(m_paths.codeDir.toUtf8()));
    QVERIFY(outcome.output.contains("to stderr"));
    QVERIFY(QFile::exists(m_paths.outputDir + u"/x"_s));
}

void tst_PythonRunner::openpaiCommandGetsACleanEnvironment()
{
    // The worker's own environment (a GPU owner's credentials) never reaches a task.
    QVERIFY(QDir().mkpath(m_paths.scratchDir));
    qputenv("AWS_SECRET_ACCESS_KEY", "owner-secret");
    m_lease.env.insert(u"PAI_DATA_DIR"_s, u"hdfs://data/iris"_s);
    LaunchSpec launch = spec(TaskLease::Kind::OpenPai);
    launch.environment = taskEnvironment(m_lease, m_paths, {u"10.0.0.2"_s, 4001, {}, {}});
    // bash (`source`), a writable working folder, `python` even where only python3 exists.
    launch.command = uR"(echo 'export FROM_SOURCE=yes' > vars.sh && source vars.sh && )"
                     uR"(python -c 'import os; print("ENV", sorted(os.environ.items()))')"_s;
    const auto unset = qScopeGuard([] { qunsetenv("AWS_SECRET_ACCESS_KEY"); });
    const Outcome result = run(launch);
    QVERIFY2(result.exitCode == 0, result.output.constData());
    QVERIFY(!result.output.contains("owner-secret"));
    QVERIFY(!result.output.contains("AWS_SECRET_ACCESS_KEY"));
    QVERIFY(result.output.contains("('FROM_SOURCE', 'yes')"));
    QVERIFY(result.output.contains("('LANG', 'C.UTF-8')"));
    const auto pair = [](const char *name, const QString &value) -> QByteArray {
        return QByteArray("('") + name + "', '" + value.toUtf8() + "')";
    };
    QVERIFY(result.output.contains(pair("HOME", m_paths.scratchDir)));
    QVERIFY(result.output.contains(pair("PAI_DATA_DIR", m_paths.datasetDir)));
    QVERIFY(result.output.contains(pair("PAI_DATA_DIR_URI", u"hdfs://data/iris"_s)));
    QVERIFY2(result.output.contains(
                 pair("PATH", m_paths.binDir + u':' + QString::fromLatin1(TaskSearchPath))),
             result.output.constData());
    QVERIFY(QFile::exists(m_paths.codeDir + u"/vars.sh"_s));
}

void tst_PythonRunner::missingInterpreterFailsToStart()
{
    writeFile(m_paths.codeDir + u"/main.py"_s, "def main(d, o):\n    pass\n");
    LaunchSpec launch = spec();
    launch.python = m_dir->filePath(u"no-such-python"_s);
    const Outcome outcome = run(launch);
    QCOMPARE(outcome.exitCode, -1);
    QVERIFY2(outcome.description.contains(u"cannot start"), qPrintable(outcome.description));
}

QTEST_GUILESS_MAIN(tst_PythonRunner)
#include "tst_pythonrunner.moc"
