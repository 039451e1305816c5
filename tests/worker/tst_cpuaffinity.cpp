// A task's CPU request enforced by CPU affinity, with real python3 processes: the worker's cores
// (its own affinity) are handed out by CpuCorePool as the agent does, and TaskProcess pins the
// task's first process to them, so that the task and everything it starts run on those cores
// only. Each case runs in the bubblewrap sandbox where it can run, and unconfined.
#include "agent/cpucorepool.h"
#include "config/workerconfig.h"
#include "prerequisite.h"
#include "process/cpuaffinity.h"
#include "runner/taskprocess.h"
#include "sandbox/sandbox.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#ifdef Q_OS_LINUX
#include <sched.h>
#endif

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

// What main.py saw: its own affinity, a child process's, and DDL_CPU_CORES (null when unset).
struct Seen
{
    QList<int> cores;
    QList<int> childCores;
    QJsonValue env;
};

// The task prints what it runs on, and what a process it starts runs on; HOLD_S keeps it running.
const QByteArray AffinityMain = R"py(import json, os, subprocess, sys, time
def main(dataset_dir, model_output_dir):
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
        capture_output=True, text=True, check=True).stdout
    print("RESULT " + json.dumps({"cores": sorted(os.sched_getaffinity(0)),
                                  "child": json.loads(child),
                                  "env": os.environ.get("DDL_CPU_CORES")}), flush=True)
    time.sleep(float(os.environ.get("HOLD_S", "0")))
)py";

void writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    file.write(content);
}

QList<int> intList(const QJsonValue &value)
{
    QList<int> list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toInt(-1));
    return list;
}

Seen seenIn(const QByteArray &output)
{
    for (const QByteArray &line : output.split('\n')) {
        if (!line.startsWith("RESULT "))
            continue;
        const QJsonObject object = QJsonDocument::fromJson(line.mid(7)).object();
        return {intList(object.value(u"cores"_s)),
                intList(object.value(u"child"_s)),
                object.value(u"env"_s)};
    }
    return {};
}

} // namespace

class tst_CpuAffinity : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void poolPrefersFreeCoresThenShares();
    void usableCoresFollowTheWorkersAffinity();

    void oneCoreTaskRunsOnItsCore_data();
    void oneCoreTaskRunsOnItsCore();
    void twoTasksAtOnceGetDifferentCores_data();
    void twoTasksAtOnceGetDifferentCores();
    void moreCoresThanExistGetsThemAll_data();
    void moreCoresThanExistGetsThemAll();
    void noCpusNoPinning_data();
    void noCpusNoPinning();

private:
    void addSandboxRows();
    // Builds the task's folders and main.py; sandboxed per the current data row.
    LaunchSpec launchSpec(qint64 taskId, const QList<int> &cores, double holdSeconds = 0);

    Sandbox m_sandbox;
    QString m_skipReason;
    std::unique_ptr<QTemporaryDir> m_root;
    QList<int> m_usable;
};

void tst_CpuAffinity::initTestCase()
{
#ifndef Q_OS_LINUX
    QSKIP("tasks are pinned to CPU cores only on Linux");
#endif
    m_usable = cpuaffinity::usableCores();
    QVERIFY(!m_usable.isEmpty());
    const ddl::Result<Sandbox> probed = Sandbox::probe(Sandbox::defaultBubblewrapPath());
    if (probed)
        m_sandbox = *probed;
    else
        m_skipReason = u"bubblewrap cannot run on this machine: "_s + probed.error().message;
}

void tst_CpuAffinity::init()
{
    // Outside /tmp, which the sandbox replaces with a tmpfs of its own.
    m_root = std::make_unique<QTemporaryDir>(QCoreApplication::applicationDirPath() +
                                             u"/tst_cpuaffinity-XXXXXX"_s);
    QVERIFY(m_root->isValid());
}

void tst_CpuAffinity::addSandboxRows()
{
    QTest::addColumn<bool>("sandboxed");
    QTest::newRow("sandboxed") << true;
    QTest::newRow("unconfined") << false;
}

LaunchSpec tst_CpuAffinity::launchSpec(qint64 taskId, const QList<int> &cores, double holdSeconds)
{
    QFETCH(bool, sandboxed);
    TaskLease lease;
    lease.taskId = taskId;
    lease.jobName = u"affinity"_s;
    lease.role = u"worker"_s;
    lease.cpus = int(cores.size());
    lease.memoryMb = 512;
    lease.env.insert(u"HOLD_S"_s, QString::number(holdSeconds));
    const TaskPaths paths = TaskPaths::forTask(m_root->filePath(u"tasks"_s), taskId);
    QDir().mkpath(paths.codeDir);
    QDir().mkpath(paths.outputDir);
    QDir().mkpath(paths.datasetDir);
    QDir().mkpath(paths.scratchDir);
    writeFile(paths.codeDir + u"/main.py"_s, AffinityMain);

    LaunchSpec launch;
    launch.kind = TaskLease::Kind::Ddl;
    launch.python = defaultPythonInterpreter();
    launch.paths = paths;
    launch.environment = taskEnvironment(lease, paths, {u"127.0.0.1"_s, 4000, {}, {}});
    if (sandboxed) {
        launch.sandbox = m_sandbox;
        launch.sandboxSpec = taskSandboxSpec(lease, paths, {}, SandboxPolicy{});
    }
    launch.cpuCores = cores;
    return launch;
}

#define SKIP_WITHOUT_SANDBOX()                                                                     \
    do {                                                                                           \
        QFETCH(bool, sandboxed);                                                                   \
        DDL_REQUIRE_PREREQUISITE(!sandboxed || m_sandbox.isEnabled(), m_skipReason);               \
    } while (false)

// Runs the tasks at once; each outcome is filled when its process finishes.
static QList<Outcome> runTogether(const QList<LaunchSpec> &launches, int *startedTogether)
{
    QList<Outcome> outcomes(launches.size());
    std::vector<std::unique_ptr<TaskProcess>> processes;
    int running = 0;
    int maxRunning = 0;
    for (qsizetype i = 0; i < launches.size(); ++i) {
        auto process = std::make_unique<TaskProcess>();
        Outcome *outcome = &outcomes[i];
        QObject::connect(process.get(), &TaskProcess::output, [outcome](const QByteArray &bytes) {
            outcome->output += bytes;
        });
        QObject::connect(process.get(), &TaskProcess::started, [&running, &maxRunning] {
            maxRunning = std::max(maxRunning, ++running);
        });
        QObject::connect(process.get(),
                         &TaskProcess::finished,
                         [outcome, &running](int exitCode, const QString &description) {
                             --running;
                             outcome->exitCode = exitCode;
                             outcome->description = description;
                         });
        processes.push_back(std::move(process));
    }
    for (qsizetype i = 0; i < launches.size(); ++i)
        processes[i]->start(launches.at(i));
    const bool done = QTest::qWaitFor(
        [&outcomes] {
            return std::all_of(outcomes.cbegin(), outcomes.cend(), [](const Outcome &outcome) {
                return outcome.exitCode != -100;
            });
        },
        60000);
    if (!done) {
        for (Outcome &outcome : outcomes) {
            if (outcome.exitCode == -100)
                outcome.description = u"timed out"_s;
        }
    }
    if (startedTogether)
        *startedTogether = maxRunning;
    return outcomes;
}

static Outcome runOne(const LaunchSpec &launch)
{
    return runTogether({launch}, nullptr).constFirst();
}

void tst_CpuAffinity::poolPrefersFreeCoresThenShares()
{
    CpuCorePool pool({5, 2, 3, 3});
    QCOMPARE(pool.cores(), (QList<int>{2, 3, 5}));
    QCOMPARE(pool.acquire(0), QList<int>{});
    QCOMPARE(pool.acquire(-1), QList<int>{});

    const QList<int> first = pool.acquire(2);
    QCOMPARE(first, (QList<int>{2, 3}));
    QCOMPARE(pool.freeCores(), QList<int>{5});
    // One core left free: it is taken first, then the least used.
    const QList<int> second = pool.acquire(2);
    QCOMPARE(second, (QList<int>{2, 5}));
    QCOMPARE(pool.users(2), 2);
    QCOMPARE(pool.users(3), 1);
    QCOMPARE(pool.users(5), 1);
    QVERIFY(pool.freeCores().isEmpty());
    // Over-committed: the least used cores (3 and 5 held once) rather than a refusal.
    const QList<int> third = pool.acquire(2);
    QCOMPARE(third, (QList<int>{3, 5}));
    // More than the pool has: all of it.
    const QList<int> all = pool.acquire(10);
    QCOMPARE(all, (QList<int>{2, 3, 5}));

    pool.release(all);
    pool.release(third);
    pool.release(second);
    QCOMPARE(pool.freeCores(), QList<int>{5});
    pool.release(first);
    QCOMPARE(pool.freeCores(), (QList<int>{2, 3, 5}));
    pool.release(first); // twice: nothing goes below free
    QCOMPARE(pool.users(2), 0);
    QCOMPARE(pool.acquire(1), QList<int>{2});

    // Without affinity (not Linux) the pool is empty and nothing is pinned.
    CpuCorePool none;
    QCOMPARE(none.acquire(4), QList<int>{});
}

void tst_CpuAffinity::usableCoresFollowTheWorkersAffinity()
{
#ifdef Q_OS_LINUX
    cpu_set_t original;
    CPU_ZERO(&original);
    QCOMPARE(sched_getaffinity(0, sizeof original, &original), 0);
    QCOMPARE(int(m_usable.size()), CPU_COUNT(&original));
    for (int core : std::as_const(m_usable))
        QVERIFY(CPU_ISSET(core, &original));
    // A worker started under taskset offers only the cores it was given.
    DDL_REQUIRE_PREREQUISITE(m_usable.size() >= 2,
                             u"needs 2 usable CPUs to restrict the worker to one"_s);
    cpu_set_t restricted;
    CPU_ZERO(&restricted);
    CPU_SET(m_usable.last(), &restricted);
    QCOMPARE(sched_setaffinity(0, sizeof restricted, &restricted), 0);
    const QList<int> usable = cpuaffinity::usableCores();
    sched_setaffinity(0, sizeof original, &original);
    QCOMPARE(usable, QList<int>{m_usable.last()});
    QCOMPARE(cpuaffinity::usableCores(), m_usable);
#endif
}

void tst_CpuAffinity::oneCoreTaskRunsOnItsCore_data()
{
    addSandboxRows();
}

void tst_CpuAffinity::oneCoreTaskRunsOnItsCore()
{
    SKIP_WITHOUT_SANDBOX();
    CpuCorePool pool(m_usable);
    const QList<int> cores = pool.acquire(1);
    QCOMPARE(cores.size(), 1);
    const Outcome outcome = runOne(launchSpec(21, cores));
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const Seen seen = seenIn(outcome.output);
    QCOMPARE(seen.cores, cores);
    QCOMPARE(seen.env.toString(), QString::number(cores.constFirst()));
    // Everything the task starts runs on its core as well.
    QCOMPARE(seen.childCores, cores);

    // The agent gives the cores back when the task has ended.
    QVERIFY(pool.freeCores().size() == m_usable.size() - 1);
    pool.release(cores);
    QCOMPARE(pool.freeCores(), m_usable);
}

void tst_CpuAffinity::twoTasksAtOnceGetDifferentCores_data()
{
    addSandboxRows();
}

void tst_CpuAffinity::twoTasksAtOnceGetDifferentCores()
{
    SKIP_WITHOUT_SANDBOX();
    DDL_REQUIRE_PREREQUISITE(m_usable.size() >= 2, u"needs 2 usable CPUs"_s);
    CpuCorePool pool(m_usable);
    const QList<int> first = pool.acquire(1);
    const QList<int> second = pool.acquire(1);
    QVERIFY(first != second);
    int together = 0;
    const QList<Outcome> outcomes =
        runTogether({launchSpec(31, first, 1.5), launchSpec(32, second, 1.5)}, &together);
    QCOMPARE(together, 2);
    for (const Outcome &outcome : outcomes)
        QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const Seen seenFirst = seenIn(outcomes.at(0).output);
    const Seen seenSecond = seenIn(outcomes.at(1).output);
    QCOMPARE(seenFirst.cores, first);
    QCOMPARE(seenFirst.env.toString(), cpuaffinity::format(first));
    QCOMPARE(seenSecond.cores, second);
    QCOMPARE(seenSecond.env.toString(), cpuaffinity::format(second));

    pool.release(first);
    pool.release(second);
    QCOMPARE(pool.freeCores(), m_usable);
}

void tst_CpuAffinity::moreCoresThanExistGetsThemAll_data()
{
    addSandboxRows();
}

void tst_CpuAffinity::moreCoresThanExistGetsThemAll()
{
    SKIP_WITHOUT_SANDBOX();
    CpuCorePool pool(m_usable);
    const QList<int> cores = pool.acquire(int(m_usable.size()) + 3);
    QCOMPARE(cores, m_usable);
    const Outcome outcome = runOne(launchSpec(41, cores));
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const Seen seen = seenIn(outcome.output);
    QCOMPARE(seen.cores, m_usable);
    QCOMPARE(seen.env.toString(), cpuaffinity::format(m_usable));
    pool.release(cores);
    QCOMPARE(pool.freeCores(), m_usable);
}

void tst_CpuAffinity::noCpusNoPinning_data()
{
    addSandboxRows();
}

void tst_CpuAffinity::noCpusNoPinning()
{
    SKIP_WITHOUT_SANDBOX();
    CpuCorePool pool(m_usable);
    const QList<int> cores = pool.acquire(0);
    QVERIFY(cores.isEmpty());
    // A DDL_CPU_CORES that came with the task's environment (the worker's own never does) does
    // not reach an unpinned task.
    LaunchSpec launch = launchSpec(51, cores);
    launch.environment.insert(u"DDL_CPU_CORES"_s, u"99"_s);
    const Outcome outcome = runOne(launch);
    QVERIFY2(outcome.exitCode == 0, outcome.output.constData());
    const Seen seen = seenIn(outcome.output);
    QCOMPARE(seen.cores, m_usable);
    QVERIFY(seen.env.isNull());
}

QTEST_GUILESS_MAIN(tst_CpuAffinity)
#include "tst_cpuaffinity.moc"
