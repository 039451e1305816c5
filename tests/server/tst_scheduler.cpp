// The Scheduler over a real SQLite store in a temporary data dir: the order of the queue
// (priority, fair share, age), per-user limits, the reasons stored on waiting jobs, placements
// persisted into the tasks table and leased once, resources given back when tasks end, and the
// state rebuilt by load() after a restart. Users, jobs, tasks and workers are plain rows matching
// store/migrations.cpp; tasks end through JobProgress, as a worker's report does.
#include "jobs/jobprogress.h"
#include "scheduler/scheduler.h"
#include "store/database.h"
#include "store/sql.h"
#include "wire/jobstate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <memory>
#include <optional>

using namespace ddl;
using namespace ddl::server;

namespace {

const QString Connection = QStringLiteral("tst_scheduler");

struct Capacity
{
    int gpus = 0;
    int cpus = 16;
    qint64 memoryMb = 64000;
    int slotCount = 8;
    QString gpuType; // --gpu-type
    QStringList runtimes = {QStringLiteral("bubblewrap")}; // as the worker announces them
};

// What each task of a one-role job asks for.
struct Ask
{
    int taskNumber = 1;
    int gpus = 0;
    int cpus = 1;
    qint64 memoryMb = 1000;
    int priority = 0;
    int retryCount = 0;
    QJsonObject roleFields = {}; // more fields of the role (portList, minFailedTaskCount, ...)
    QJsonObject specFields = {}; // more fields of the spec (jobEnvs, ...)
};

void dropConnection(const QString &name)
{
    {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

} // namespace

class tst_Scheduler : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void priorityOrder_data();
    void priorityOrder();
    void fairShare_data();
    void fairShare();
    void userLimits_data();
    void userLimits();
    void reasonsAreStoredWithPlaceInQueue();
    void noWorkerOnline();
    void gpuTypeChoosesWorkers();
    void ddlImageWaitsForPodman();
    void placementsPersistedAndLeasedOnce();
    void leaseRunsADuePass();
    void dequeuedJobIsNotPlaced();
    void taskEndedFreesResourcesForTheNext();
    void retriedJobIsPlacedAgain();
    void loadRebuildsStateAfterRestart();
    void storeRefusalIsRetried();
    void openPaiPortsAndJobEnvsInLease();
    void completionPolicy_data();
    void completionPolicy();

private:
    void openStore();
    void restart();
    qint64 addUser(const QString &email, std::optional<int> maxGpus = {},
                   std::optional<int> maxRunningJobs = {});
    qint64 addWorker(const QString &name, const Capacity &capacity, bool online = true);
    qint64 submit(qint64 userId, const Ask &ask);
    QList<qint64> tasksOf(qint64 jobId, int attempt = 1);
    QVariant value(const QString &sql, const QVariantList &binds);
    QString taskState(qint64 taskId);
    QString jobReason(qint64 jobId);
    bool isPlaced(qint64 jobId);
    void endTask(qint64 taskId, const QString &state = stateName(JobState::Succeeded));

    std::unique_ptr<QTemporaryDir> m_dir;
    QSqlDatabase m_db;
    std::unique_ptr<Scheduler> m_scheduler;
    std::unique_ptr<JobProgress> m_progress;
};

void tst_Scheduler::initTestCase()
{
    QLoggingCategory::setFilterRules(QStringLiteral("ddl.*.info=false"));
}

void tst_Scheduler::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    openStore();
}

void tst_Scheduler::cleanup()
{
    m_progress.reset();
    m_scheduler.reset();
    m_db = QSqlDatabase();
    dropConnection(Connection);
    m_dir.reset();
}

void tst_Scheduler::openStore()
{
    Result<QSqlDatabase> db = Database::open(m_dir->path(), Connection);
    QVERIFY2(db, db ? "" : qPrintable(db.error().message));
    m_db = *db;
    m_scheduler = std::make_unique<Scheduler>(m_db);
    m_progress = std::make_unique<JobProgress>(m_db, *m_scheduler);
}

// As if the server stopped and started again on the same data dir.
void tst_Scheduler::restart()
{
    m_progress.reset();
    m_scheduler.reset();
    m_db = QSqlDatabase();
    dropConnection(Connection);
    openStore();
    QVERIFY(m_scheduler->load());
}

QVariant tst_Scheduler::value(const QString &sql, const QVariantList &binds)
{
    Result<QSqlQuery> query = runSql(m_db, sql, binds);
    if (!query) {
        qWarning().noquote() << query.error().message;
        return {};
    }
    return query->next() ? query->value(0) : QVariant();
}

qint64 tst_Scheduler::addUser(const QString &email, std::optional<int> maxGpus,
                              std::optional<int> maxRunningJobs)
{
    Result<QSqlQuery> insert = runSql(m_db,
                                      QStringLiteral("INSERT INTO users (email, password_hash, "
                                                     "created_at, max_gpus, max_running_jobs) "
                                                     "VALUES (?, 'x', ?, ?, ?)"),
                                      {email, nowMs(), maxGpus ? QVariant(*maxGpus) : QVariant(),
                                       maxRunningJobs ? QVariant(*maxRunningJobs) : QVariant()});
    if (!insert)
        qFatal("%s", qPrintable(insert.error().message));
    return insert->lastInsertId().toLongLong();
}

qint64 tst_Scheduler::addWorker(const QString &name, const Capacity &capacity, bool online)
{
    const qint64 now = nowMs();
    Result<QSqlQuery> insert = runSql(
        m_db,
        QStringLiteral("INSERT INTO workers (name, hostname, address, token_hash, cpus, memory_mb, "
                       "gpus, slots, state, last_seen, created_at, gpu_type, runtimes) VALUES (?, "
                       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        {name, name, QString(QStringLiteral("addr-") + name), QString(QStringLiteral("hash-") + name),
         capacity.cpus,
         capacity.memoryMb, capacity.gpus, capacity.slotCount,
         online ? QStringLiteral("ONLINE") : QStringLiteral("OFFLINE"), now, now,
         capacity.gpuType.isNull() ? QStringLiteral("") : capacity.gpuType,
         capacity.runtimes.join(u',')});
    if (!insert)
        qFatal("%s", qPrintable(insert.error().message));
    WorkerNode node;
    node.id = insert->lastInsertId().toLongLong();
    node.address = QStringLiteral("addr-") + name;
    node.totalGpus = capacity.gpus;
    node.totalCpus = capacity.cpus;
    node.totalMemoryMb = capacity.memoryMb;
    node.totalSlots = capacity.slotCount;
    node.online = online;
    node.gpuType = capacity.gpuType;
    node.runtimes = capacity.runtimes;
    m_scheduler->workerSeen(node);
    return node.id;
}

// A job of one role "worker" with its tasks, as JobService::submit stores it, then queued.
qint64 tst_Scheduler::submit(qint64 userId, const Ask &ask)
{
    QJsonObject role{{QStringLiteral("name"), QStringLiteral("worker")},
                     {QStringLiteral("taskNumber"), ask.taskNumber},
                     {QStringLiteral("gpuNumber"), ask.gpus},
                     {QStringLiteral("cpuNumber"), ask.cpus},
                     {QStringLiteral("memoryMB"), ask.memoryMb},
                     {QStringLiteral("command"), QStringLiteral("python train.py")}};
    for (auto it = ask.roleFields.begin(); it != ask.roleFields.end(); ++it)
        role.insert(it.key(), it.value());
    QJsonObject spec{
        {QStringLiteral("kind"), QStringLiteral("ddl")},
        {QStringLiteral("jobName"), QStringLiteral("job")},
        {QStringLiteral("retryCount"), ask.retryCount},
        {QStringLiteral("taskRoles"), QJsonArray{role}},
    };
    for (auto it = ask.specFields.begin(); it != ask.specFields.end(); ++it)
        spec.insert(it.key(), it.value());
    Result<QSqlQuery> insert = runSql(
        m_db,
        QStringLiteral("INSERT INTO jobs (uuid, user_id, name, kind, state, spec, package_sha256, "
                       "commit_id, attempt, retry_count, reason, created_at, priority) VALUES (?, "
                       "?, 'job', 'ddl', ?, ?, '', '', 1, ?, 'waiting for the scheduler', ?, ?)"),
        {QUuid::createUuid().toString(QUuid::WithoutBraces), userId, stateName(JobState::Waiting),
         QString::fromUtf8(QJsonDocument(spec).toJson(QJsonDocument::Compact)), ask.retryCount,
         nowMs(), ask.priority});
    if (!insert)
        qFatal("%s", qPrintable(insert.error().message));
    const qint64 jobId = insert->lastInsertId().toLongLong();
    for (int index = 0; index < ask.taskNumber; ++index) {
        Result<QSqlQuery> task = runSql(m_db,
                                        QStringLiteral("INSERT INTO tasks (job_id, attempt, "
                                                       "task_index, role, role_index, state) "
                                                       "VALUES (?, 1, ?, 'worker', ?, ?)"),
                                        {jobId, index, index, stateName(JobState::Waiting)});
        if (!task)
            qFatal("%s", qPrintable(task.error().message));
    }
    m_scheduler->enqueue(jobId);
    return jobId;
}

QList<qint64> tst_Scheduler::tasksOf(qint64 jobId, int attempt)
{
    QList<qint64> ids;
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT id FROM tasks WHERE job_id = ? AND "
                                                    "attempt = ? ORDER BY id"),
                                     {jobId, attempt});
    while (query && query->next())
        ids << query->value(0).toLongLong();
    return ids;
}

QString tst_Scheduler::taskState(qint64 taskId)
{
    return value(QStringLiteral("SELECT state FROM tasks WHERE id = ?"), {taskId}).toString();
}

QString tst_Scheduler::jobReason(qint64 jobId)
{
    return value(QStringLiteral("SELECT reason FROM jobs WHERE id = ?"), {jobId}).toString();
}

// Whether every task of the job's first attempt is placed.
bool tst_Scheduler::isPlaced(qint64 jobId)
{
    return value(QStringLiteral("SELECT COUNT(*) FROM tasks WHERE job_id = ? AND state = ? AND "
                                "worker_id IS NOT NULL"),
                 {jobId, stateName(JobState::Running)})
               .toInt()
           == tasksOf(jobId).size();
}

void tst_Scheduler::endTask(qint64 taskId, const QString &state)
{
    QVERIFY(m_progress->taskStarted(taskId));
    const Result<JobState> end = parseJobState(state);
    QVERIFY(end.ok());
    QVERIFY(m_progress->taskEnded(taskId, {*end, *end == JobState::Succeeded ? 0 : 1, {}}));
}

void tst_Scheduler::priorityOrder_data()
{
    QTest::addColumn<QList<int>>("users");      // the submitter of each job: user 0 or 1
    QTest::addColumn<QList<int>>("priorities"); // of each job
    QTest::addColumn<int>("gpus");              // of the one worker; each job wants 1
    QTest::addColumn<QList<int>>("placed");     // the jobs expected to run

    QTest::newRow("same user: higher priority first")
        << QList<int>{0, 0} << QList<int>{0, 5} << 1 << QList<int>{1};
    QTest::newRow("two users: higher priority first")
        << QList<int>{0, 1} << QList<int>{0, 5} << 1 << QList<int>{1};
    QTest::newRow("equal priority: older first")
        << QList<int>{0, 0} << QList<int>{0, 0} << 1 << QList<int>{0};
    QTest::newRow("equal priority across users: older first")
        << QList<int>{1, 0} << QList<int>{0, 0} << 1 << QList<int>{0};
    QTest::newRow("negative priority last")
        << QList<int>{0, 1, 0} << QList<int>{-5, 0, 0} << 2 << QList<int>{1, 2};
    QTest::newRow("priority before fair share")
        << QList<int>{1, 0, 0} << QList<int>{0, 10, 10} << 2 << QList<int>{1, 2};
}

void tst_Scheduler::priorityOrder()
{
    QFETCH(QList<int>, users);
    QFETCH(QList<int>, priorities);
    QFETCH(int, gpus);
    QFETCH(QList<int>, placed);

    const qint64 userIds[] = {addUser(QStringLiteral("a@x")), addUser(QStringLiteral("b@x"))};
    addWorker(QStringLiteral("w1"), {gpus, 16, 64000, 8});
    QList<qint64> jobs;
    for (int i = 0; i < users.size(); ++i)
        jobs << submit(userIds[users.at(i)], Ask{1, 1, 1, 1000, priorities.at(i)});

    QCOMPARE(*m_scheduler->schedule(), int(placed.size()));
    for (int i = 0; i < jobs.size(); ++i) {
        QCOMPARE(isPlaced(jobs.at(i)), placed.contains(i));
        if (!placed.contains(i))
            QVERIFY(jobReason(jobs.at(i)).startsWith(QStringLiteral("needs 1 GPU on one worker")));
    }
    QCOMPARE(m_scheduler->queuedJobs(), int(jobs.size() - placed.size()));
}

void tst_Scheduler::fairShare_data()
{
    QTest::addColumn<QList<int>>("submitters"); // user 0 or 1, in the order of submission
    QTest::addColumn<int>("gpus");              // of each one-task job
    QTest::addColumn<int>("runningBefore");     // one-task jobs user 0 runs already
    QTest::addColumn<QList<int>>("expected");   // running jobs per user after the pass

    const QList<int> aFirst{0, 0, 0, 0, 1, 1, 1, 1};
    QTest::newRow("A submits first, CPU jobs") << aFirst << 0 << 0 << QList<int>{2, 2};
    QTest::newRow("A submits first, 1-GPU jobs") << aFirst << 1 << 0 << QList<int>{2, 2};
    QTest::newRow("B submits first, 1-GPU jobs")
        << QList<int>{1, 1, 1, 1, 0, 0, 0, 0} << 1 << 0 << QList<int>{2, 2};
    QTest::newRow("interleaved") << QList<int>{0, 1, 0, 1, 0, 1, 0, 1} << 1 << 0
                                 << QList<int>{2, 2};
    QTest::newRow("the user running more waits")
        << QList<int>{0, 0, 1, 1} << 1 << 2 << QList<int>{2, 2};
    QTest::newRow("the user running more waits, 3 before")
        << QList<int>{0, 0, 1, 1} << 0 << 3 << QList<int>{3, 1};
}

void tst_Scheduler::fairShare()
{
    QFETCH(QList<int>, submitters);
    QFETCH(int, gpus);
    QFETCH(int, runningBefore);
    QFETCH(QList<int>, expected);

    const qint64 userIds[] = {addUser(QStringLiteral("a@x")), addUser(QStringLiteral("b@x"))};
    addWorker(QStringLiteral("w1"), {gpus ? 4 : 0, 16, 64000, 4});
    for (int i = 0; i < runningBefore; ++i)
        submit(userIds[0], Ask{1, gpus});
    QCOMPARE(*m_scheduler->schedule(), runningBefore);

    for (const int user : submitters)
        submit(userIds[user], Ask{1, gpus});
    QCOMPARE(*m_scheduler->schedule(), 4 - runningBefore);
    for (int user = 0; user < 2; ++user) {
        const int running = value(QStringLiteral("SELECT COUNT(*) FROM tasks t JOIN jobs j ON "
                                                 "j.id = t.job_id WHERE j.user_id = ? AND t.state "
                                                 "= ?"),
                                  {userIds[user], stateName(JobState::Running)})
                                .toInt();
        QCOMPARE(running, expected.at(user));
    }
}

void tst_Scheduler::userLimits_data()
{
    QTest::addColumn<int>("maxGpus");        // -1: none
    QTest::addColumn<int>("maxRunningJobs"); // -1: none
    QTest::addColumn<QList<int>>("gpus");    // of each one-task job of the limited user
    QTest::addColumn<QStringList>("reasons"); // empty where the job runs

    QTest::newRow("no limits") << -1 << -1 << QList<int>{1, 1, 1} << QStringList{{}, {}, {}};
    QTest::newRow("max_running_jobs 1")
        << -1 << 1 << QList<int>{0, 0, 1}
        << QStringList{{},
                       QStringLiteral("user limit of 1 running job reached"),
                       QStringLiteral("user limit of 1 running job reached; behind 1 job in the "
                                      "queue")};
    QTest::newRow("max_gpus 2")
        << 2 << -1 << QList<int>{1, 1, 1}
        << QStringList{{}, {}, QStringLiteral("user limit of 2 GPUs reached (2 in use, this job "
                                              "needs 1)")};
    QTest::newRow("max_gpus 2, a job wanting 4")
        << 2 << -1 << QList<int>{4, 1}
        << QStringList{QStringLiteral("user limit of 2 GPUs reached (0 in use, this job needs 4)"),
                       {}};
    QTest::newRow("max_gpus 0 stops GPU jobs only")
        << 0 << -1 << QList<int>{1, 0}
        << QStringList{QStringLiteral("user limit of 0 GPUs reached (0 in use, this job needs 1)"),
                       {}};
    QTest::newRow("both limits")
        << 4 << 2 << QList<int>{1, 1, 1}
        << QStringList{{}, {}, QStringLiteral("user limit of 2 running jobs reached")};
}

void tst_Scheduler::userLimits()
{
    QFETCH(int, maxGpus);
    QFETCH(int, maxRunningJobs);
    QFETCH(QList<int>, gpus);
    QFETCH(QStringList, reasons);

    const auto limit = [](int value) { return value < 0 ? std::nullopt : std::optional(value); };
    const qint64 limited = addUser(QStringLiteral("a@x"), limit(maxGpus), limit(maxRunningJobs));
    const qint64 other = addUser(QStringLiteral("b@x"));
    addWorker(QStringLiteral("w1"), {8, 16, 64000, 8});
    QList<qint64> jobs;
    for (const int wanted : gpus)
        jobs << submit(limited, Ask{1, wanted});
    // The limits are the user's own: another user's job runs all the same.
    const qint64 othersJob = submit(other, Ask{1, 2});

    QVERIFY(m_scheduler->schedule());
    QVERIFY(isPlaced(othersJob));
    for (int i = 0; i < jobs.size(); ++i) {
        QCOMPARE(isPlaced(jobs.at(i)), reasons.at(i).isEmpty());
        if (!reasons.at(i).isEmpty())
            QCOMPARE(jobReason(jobs.at(i)), reasons.at(i));
    }

    // A limit changed in the store (by `ddl-server user limits`) holds from the next pass.
    QVERIFY(runSql(m_db,
                   QStringLiteral("UPDATE users SET max_gpus = NULL, max_running_jobs = NULL "
                                  "WHERE id = ?"),
                   {limited}));
    QVERIFY(m_scheduler->schedule());
    for (const qint64 job : std::as_const(jobs))
        QVERIFY(isPlaced(job));
}

void tst_Scheduler::reasonsAreStoredWithPlaceInQueue()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    addWorker(QStringLiteral("w1"), {2, 16, 64000, 8});
    const qint64 big = submit(user, Ask{1, 2});
    const qint64 second = submit(user, Ask{1, 1});
    const qint64 third = submit(user, Ask{1, 1});
    const qint64 fourth = submit(user, Ask{1, 1});
    const qint64 never = submit(user, Ask{1, 4});

    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(big));
    const QString noGpu = QStringLiteral("needs 1 GPU on one worker (the most free is 0)");
    QCOMPARE(jobReason(second), noGpu);
    QCOMPARE(jobReason(third), noGpu + QStringLiteral("; behind 1 job in the queue"));
    QCOMPARE(jobReason(fourth), noGpu + QStringLiteral("; behind 2 jobs in the queue"));
    QCOMPARE(jobReason(never),
             QStringLiteral("needs 4 GPUs on one worker; the largest worker has 2 GPUs, so it "
                            "cannot run until a bigger one joins; behind 3 jobs in the queue"));

    // The big job ends: its 2 GPUs go to the next two, and the places in the queue move up.
    const QList<qint64> bigTasks = tasksOf(big);
    endTask(bigTasks.first());
    QCOMPARE(*m_scheduler->schedule(), 2);
    QVERIFY(isPlaced(second));
    QVERIFY(isPlaced(third));
    QCOMPARE(jobReason(fourth), noGpu);
    QCOMPARE(jobReason(never),
             QStringLiteral("needs 4 GPUs on one worker; the largest worker has 2 GPUs, so it "
                            "cannot run until a bigger one joins; behind 1 job in the queue"));
}

void tst_Scheduler::noWorkerOnline()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 job = submit(user, Ask{1, 1});
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(jobReason(job), QStringLiteral("no worker is online; start a ddl-worker"));

    // A worker comes and the job runs; once the worker is lost, nothing goes to it.
    const qint64 worker = addWorker(QStringLiteral("w1"), {2, 16, 64000, 8});
    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(job));
    m_scheduler->workerLost(worker);
    const qint64 later = submit(user, Ask{1, 1});
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(jobReason(later), QStringLiteral("no worker is online; start a ddl-worker"));
}

void tst_Scheduler::gpuTypeChoosesWorkers()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    addWorker(QStringLiteral("k80"), {2, 16, 64000, 1, QStringLiteral("K80")});
    const qint64 v100 =
        addWorker(QStringLiteral("v100"), {2, 16, 64000, 1, QStringLiteral("V100")});
    const auto ofType = [](const QString &type) {
        return Ask{1, 1, 1, 1000, 0, 0, {}, {{QStringLiteral("gpuType"), type}}};
    };
    const qint64 first = submit(user, ofType(QStringLiteral("v100")));
    const qint64 second = submit(user, ofType(QStringLiteral("V100")));
    const qint64 missing = submit(user, ofType(QStringLiteral("A100")));

    // The V100 worker, in any case; the K80 worker's free slot is no place for the second.
    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(first));
    QCOMPARE(value(QStringLiteral("SELECT worker_id FROM tasks WHERE job_id = ?"), {first})
                 .toLongLong(),
             v100);
    const QString busy = QStringLiteral("on the workers with GPU type V100, needs 1 task slot at "
                                        "once (0 are free)");
    const QString none = QStringLiteral("needs GPU type A100; no online worker has it (start a "
                                        "ddl-worker with --gpu-type A100); behind 1 job in the "
                                        "queue");
    QCOMPARE(jobReason(second), busy);
    QCOMPARE(jobReason(missing), none);

    // The types come back from the store after a restart.
    restart();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_scheduler->placer().workers().value(v100).gpuType, QStringLiteral("V100"));
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(jobReason(second), busy);
    QCOMPARE(jobReason(missing), none);
}

void tst_Scheduler::ddlImageWaitsForPodman()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 sandbox = addWorker(QStringLiteral("sandbox"), {0, 16, 64000, 4});
    const auto inImage = [](const QString &image) {
        return Ask{1, 0, 1, 1000, 0, 0, {}, {{QStringLiteral("image"), image}}};
    };
    const qint64 pushed = submit(user, inImage(QStringLiteral("ddl://ddl-test")));
    // A registry image runs in the sandbox of a worker without podman (its log says so).
    const qint64 registry = submit(user, inImage(QStringLiteral("python:3.11")));

    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(registry));
    QCOMPARE(value(QStringLiteral("SELECT worker_id FROM tasks WHERE job_id = ?"), {registry})
                 .toLongLong(),
             sandbox);
    QVERIFY(!isPlaced(pushed));
    const QString waits = QStringLiteral("needs a worker with a container runtime (podman) for "
                                         "image ddl://ddl-test; none is online (start a "
                                         "ddl-worker with --container-runtime podman)");
    QCOMPARE(jobReason(pushed), waits);

    // The runtimes come back from the store after a restart; the job still waits.
    restart();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_scheduler->placer().workers().value(sandbox).runtimes,
             QStringList{QStringLiteral("bubblewrap")});
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(jobReason(pushed), waits);

    // A worker with podman joins: the job goes there.
    Capacity withPodman{0, 2, 8000, 1};
    withPodman.runtimes << QStringLiteral("podman");
    const qint64 podman = addWorker(QStringLiteral("podman"), withPodman);
    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(pushed));
    QCOMPARE(value(QStringLiteral("SELECT worker_id FROM tasks WHERE job_id = ?"), {pushed})
                 .toLongLong(),
             podman);
}

void tst_Scheduler::placementsPersistedAndLeasedOnce()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 w1 = addWorker(QStringLiteral("w1"), {2, 16, 64000, 8});
    const qint64 w2 = addWorker(QStringLiteral("w2"), {2, 16, 64000, 8});
    const qint64 job = submit(user, Ask{2, 2, 4, 8000});

    QCOMPARE(*m_scheduler->schedule(), 2);
    QHash<qint64, qint64> workerOfTask;
    QHash<qint64, int> portOfTask;
    for (const qint64 task : tasksOf(job)) {
        Result<QSqlQuery> row = runSql(m_db,
                                       QStringLiteral("SELECT state, worker_id, port, gpu_indices, "
                                                      "delivered FROM tasks WHERE id = ?"),
                                       {task});
        QVERIFY(row && row->next());
        QCOMPARE(row->value(0).toString(), stateName(JobState::Running));
        workerOfTask.insert(task, row->value(1).toLongLong());
        portOfTask.insert(task, row->value(2).toInt());
        QVERIFY(row->value(2).toInt() >= GangPlacer::FirstPort);
        QCOMPARE(row->value(3).toString(), QStringLiteral("0,1"));
        QCOMPARE(row->value(4).toInt(), 0);
    }
    // A gang of 2 tasks of 2 GPUs on two workers of 2 GPUs: one on each.
    QCOMPARE((QSet<qint64>{workerOfTask.begin(), workerOfTask.end()}), (QSet<qint64>{w1, w2}));

    QStringList hosts;
    for (const qint64 task : tasksOf(job)) {
        hosts << QStringLiteral("addr-w%1:%2")
                     .arg(workerOfTask.value(task) == w1 ? 1 : 2)
                     .arg(portOfTask.value(task));
    }
    for (const qint64 worker : {w1, w2}) {
        Result<QJsonArray> leases = m_scheduler->lease(worker);
        QVERIFY(leases);
        QCOMPARE(leases->size(), 1);
        const QJsonObject lease = leases->first().toObject();
        const qint64 task = lease.value(QStringLiteral("task_id")).toInteger();
        QCOMPARE(workerOfTask.value(task), worker);
        QCOMPARE(lease.value(QStringLiteral("gpu_indices")).toArray(), (QJsonArray{0, 1}));
        QCOMPARE(lease.value(QStringLiteral("gpus")).toInt(), 2);
        QCOMPARE(lease.value(QStringLiteral("cpus")).toInt(), 4);
        QCOMPARE(lease.value(QStringLiteral("memory_mb")).toInt(), 8000);
        QCOMPARE(lease.value(QStringLiteral("port")).toInt(), portOfTask.value(task));
        const QJsonObject env = lease.value(QStringLiteral("env")).toObject();
        QCOMPARE(env.value(QStringLiteral("PAI_TASK_ROLE_0_HOST_LIST")).toString(),
                 hosts.join(u','));
        QCOMPARE(env.value(QStringLiteral("PAI_CURRENT_CONTAINER_PORT")).toString(),
                 QString::number(portOfTask.value(task)));
        QCOMPARE(value(QStringLiteral("SELECT delivered FROM tasks WHERE id = ?"), {task}).toInt(),
                 1);

        // Delivered once: the next lease of the same worker is empty.
        Result<QJsonArray> again = m_scheduler->lease(worker);
        QVERIFY(again);
        QVERIFY(again->isEmpty());
    }
}

void tst_Scheduler::leaseRunsADuePass()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 worker = addWorker(QStringLiteral("w1"), {1, 16, 64000, 8});
    const qint64 job = submit(user, Ask{1, 1});
    // No schedule() here: the pass the submit asked for runs before the lease is answered.
    Result<QJsonArray> leases = m_scheduler->lease(worker);
    QVERIFY(leases);
    QCOMPARE(leases->size(), 1);
    QCOMPARE(leases->first().toObject().value(QStringLiteral("task_id")).toInteger(),
             tasksOf(job).first());
}

void tst_Scheduler::dequeuedJobIsNotPlaced()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    addWorker(QStringLiteral("w1"), {1, 16, 64000, 8});
    const qint64 job = submit(user, Ask{1, 1});
    m_scheduler->dequeue(job);
    QCOMPARE(m_scheduler->queuedJobs(), 0);
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(taskState(tasksOf(job).first()), stateName(JobState::Waiting));
}

void tst_Scheduler::taskEndedFreesResourcesForTheNext()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 worker = addWorker(QStringLiteral("w1"), {1, 4, 8000, 1});
    const qint64 first = submit(user, Ask{1, 1, 4, 8000});
    const qint64 second = submit(user, Ask{1, 1, 4, 8000});
    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(first));
    QVERIFY(!isPlaced(second));
    const WorkerNode busy = m_scheduler->placer().workers().value(worker);
    QCOMPARE(busy.freeGpus(), 0);
    QCOMPARE(busy.freeCpus, 0);
    QCOMPARE(busy.freeMemoryMb, qint64(0));
    QCOMPARE(busy.freeSlots, 0);

    // The end of the task (as a worker reports it) frees the worker, and the pass it asks for
    // places the next job on the same GPU.
    endTask(tasksOf(first).first());
    QCOMPARE(value(QStringLiteral("SELECT state FROM jobs WHERE id = ?"), {first}).toString(),
             stateName(JobState::Succeeded));
    QTRY_VERIFY(isPlaced(second));
    QCOMPARE(value(QStringLiteral("SELECT gpu_indices FROM tasks WHERE job_id = ?"), {second})
                 .toString(),
             QStringLiteral("0"));
    QCOMPARE(m_scheduler->queuedJobs(), 0);
    QCOMPARE(m_scheduler->placer().workers().value(worker).freeSlots, 0);
}

void tst_Scheduler::retriedJobIsPlacedAgain()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    addWorker(QStringLiteral("w1"), {2, 16, 64000, 1});
    const qint64 job = submit(user, Ask{1, 2, 1, 1000, 0, 1});
    QCOMPARE(*m_scheduler->schedule(), 1);

    endTask(tasksOf(job).first(), stateName(JobState::Failed));
    const QList<qint64> retry = tasksOf(job, 2);
    QCOMPARE(retry.size(), 1);
    QTRY_COMPARE(taskState(retry.first()), stateName(JobState::Running));
    QCOMPARE(value(QStringLiteral("SELECT gpu_indices FROM tasks WHERE id = ?"), {retry.first()})
                 .toString(),
             QStringLiteral("0,1"));
}

void tst_Scheduler::loadRebuildsStateAfterRestart()
{
    const qint64 alice = addUser(QStringLiteral("a@x"), {}, 1);
    const qint64 bob = addUser(QStringLiteral("b@x"));
    const qint64 worker = addWorker(QStringLiteral("w1"), {4, 8, 16000, 4});
    // A bigger worker that is offline must stay unused after the restart too.
    addWorker(QStringLiteral("w2"), {8, 32, 64000, 8}, false);
    const qint64 running = submit(alice, Ask{1, 2, 3, 4000});
    QCOMPARE(*m_scheduler->schedule(), 1);
    const qint64 runningTask = tasksOf(running).first();
    const int port = value(QStringLiteral("SELECT port FROM tasks WHERE id = ?"), {runningTask})
                         .toInt();
    const qint64 tooBig = submit(bob, Ask{1, 4});
    const qint64 limited = submit(alice, Ask{1, 1});
    QCOMPARE(*m_scheduler->schedule(), 0);
    const QString tooBigReason = jobReason(tooBig);
    const QString limitedReason = jobReason(limited);
    QVERIFY(tooBigReason.startsWith(QStringLiteral("needs 4 GPUs on one worker (the most free "
                                                   "is 2)")));
    QVERIFY(limitedReason.startsWith(QStringLiteral("user limit of 1 running job reached")));

    restart();
    if (QTest::currentTestFailed())
        return;

    // The running task holds its GPUs, CPUs, memory, slot and port in the new scheduler.
    const WorkerNode node = m_scheduler->placer().workers().value(worker);
    QCOMPARE(node.gpuBusy, (QList<bool>{true, true, false, false}));
    QCOMPARE(node.freeCpus, 5);
    QCOMPARE(node.freeMemoryMb, qint64(12000));
    QCOMPARE(node.freeSlots, 3);
    QCOMPARE(node.usedPorts, QSet<int>{port});
    QCOMPARE(m_scheduler->queuedJobs(), 2);

    // The waiting jobs wait for the same reasons: the limit counts the running job.
    QCOMPARE(*m_scheduler->schedule(), 0);
    QCOMPARE(jobReason(tooBig), tooBigReason);
    QCOMPARE(jobReason(limited), limitedReason);

    // Placed before the restart and not collected: delivered now, once.
    Result<QJsonArray> leases = m_scheduler->lease(worker);
    QVERIFY(leases);
    QCOMPARE(leases->size(), 1);
    QCOMPARE(leases->first().toObject().value(QStringLiteral("task_id")).toInteger(), runningTask);
    QVERIFY(m_scheduler->lease(worker)->isEmpty());

    // A new job gets the other two GPUs and another port.
    const qint64 fresh = submit(bob, Ask{1, 2});
    QCOMPARE(*m_scheduler->schedule(), 1);
    Result<QSqlQuery> row = runSql(m_db,
                                   QStringLiteral("SELECT worker_id, gpu_indices, port FROM tasks "
                                                  "WHERE job_id = ?"),
                                   {fresh});
    QVERIFY(row && row->next());
    QCOMPARE(row->value(0).toLongLong(), worker);
    QCOMPARE(row->value(1).toString(), QStringLiteral("2,3"));
    QVERIFY(row->value(2).toInt() != port);

    // The task from before the restart ends: its resources and Alice's running job are freed.
    endTask(runningTask);
    QTRY_VERIFY(isPlaced(limited));
    QVERIFY(!isPlaced(tooBig));
}

void tst_Scheduler::storeRefusalIsRetried()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 worker = addWorker(QStringLiteral("w1"), {1, 16, 64000, 8});
    const qint64 first = submit(user, Ask{1, 1});
    const qint64 second = submit(user, Ask{1, 1});

    // The store refuses the pass's transaction: nothing is placed, in the store or in memory.
    QVERIFY(runSql(m_db,
                   QStringLiteral("CREATE TRIGGER refuse BEFORE UPDATE ON tasks BEGIN SELECT "
                                  "RAISE(ABORT, 'refused by the test'); END")));
    QVERIFY(!m_scheduler->schedule());
    QCOMPARE(m_scheduler->queuedJobs(), 2);
    QCOMPARE(m_scheduler->placer().workers().value(worker).freeGpus(), 1);
    QCOMPARE(m_scheduler->placer().workers().value(worker).freeSlots, 8);
    QCOMPARE(taskState(tasksOf(first).first()), stateName(JobState::Waiting));
    QCOMPARE(jobReason(second), QStringLiteral("waiting for the scheduler"));

    // The next pass, with the store willing, places the first job and stores why the second waits.
    QVERIFY(runSql(m_db, QStringLiteral("DROP TRIGGER refuse")));
    QCOMPARE(*m_scheduler->schedule(), 1);
    QVERIFY(isPlaced(first));
    QCOMPARE(jobReason(second), QStringLiteral("needs 1 GPU on one worker (the most free is 0)"));
}

void tst_Scheduler::openPaiPortsAndJobEnvsInLease()
{
    const qint64 user = addUser(QStringLiteral("a@x"));
    const qint64 worker = addWorker(QStringLiteral("w1"), {0, 16, 64000, 8});
    Ask ask{2};
    ask.roleFields =
        QJsonObject{{QStringLiteral("shmMB"), 64},
                    {QStringLiteral("portList"),
                     QJsonArray{QJsonObject{{QStringLiteral("label"), QStringLiteral("http")},
                                            {QStringLiteral("beginAt"), 0},
                                            {QStringLiteral("portNumber"), 2}},
                                QJsonObject{{QStringLiteral("label"), QStringLiteral("ssh")},
                                            {QStringLiteral("beginAt"), 0},
                                            {QStringLiteral("portNumber"), 1}}}}};
    ask.specFields = QJsonObject{
        {QStringLiteral("jobEnvs"),
         QJsonObject{{QStringLiteral("batch_size"), 32},
                     {QStringLiteral("MODEL"), QStringLiteral("resnet")},
                     {QStringLiteral("isDebug"), true},
                     {QStringLiteral("PAI_JOB_NAME"), QStringLiteral("not the platform's")}}}};
    submit(user, ask);
    QCOMPARE(*m_scheduler->schedule(), 2);

    Result<QJsonArray> leases = m_scheduler->lease(worker);
    QVERIFY(leases);
    QCOMPARE(leases->size(), 2);
    QHash<int, QString> httpOf; // by role index
    QList<int> ports;
    for (const QJsonValue &value : *leases) {
        const QJsonObject lease = value.toObject();
        const int port = lease.value(QStringLiteral("port")).toInt();
        const QJsonObject env = lease.value(QStringLiteral("env")).toObject();
        const auto number = [port](int offset) { return QString::number(port + offset); };
        QCOMPARE(lease.value(QStringLiteral("shm_mb")).toInt(), 64);
        QCOMPARE(env.value(QStringLiteral("PAI_CONTAINER_HOST_http_PORT_LIST")).toString(),
                 number(1) + u',' + number(2));
        QCOMPARE(env.value(QStringLiteral("PAI_CONTAINER_HOST_ssh_PORT_LIST")).toString(),
                 number(3));
        QCOMPARE(env.value(QStringLiteral("PAI_CONTAINER_HOST_PORT_LIST")).toString(),
                 QStringLiteral("http:%1,%2;ssh:%3").arg(number(1), number(2), number(3)));
        QCOMPARE(env.value(QStringLiteral("PAI_HOST_IP_worker_0")).toString(),
                 QStringLiteral("addr-w1"));
        QCOMPARE(env.value(QStringLiteral("batch_size")).toString(), QStringLiteral("32"));
        QCOMPARE(env.value(QStringLiteral("MODEL")).toString(), QStringLiteral("resnet"));
        QCOMPARE(env.value(QStringLiteral("isDebug")).toString(), QStringLiteral("true"));
        // jobEnvs never replace what the platform sets.
        QCOMPARE(env.value(QStringLiteral("PAI_JOB_NAME")).toString(), QStringLiteral("job"));
        httpOf.insert(lease.value(QStringLiteral("role_index")).toInt(),
                      env.value(QStringLiteral("PAI_CONTAINER_HOST_http_PORT_LIST")).toString());
        for (int i = 0; i < 4; ++i)
            ports << port + i;
        // Every task sees the labelled ports of every task of the gang.
        for (const int peer : {0, 1}) {
            QVERIFY(env.contains(QStringLiteral("PAI_PORT_LIST_worker_%1_http").arg(peer)));
            QVERIFY(env.contains(QStringLiteral("PAI_PORT_LIST_worker_%1_ssh").arg(peer)));
        }
    }
    // The two tasks' runs of four ports do not overlap.
    QCOMPARE(QSet<int>(ports.begin(), ports.end()).size(), 8);
    for (const QJsonValue &value : *leases) {
        const QJsonObject env = value.toObject().value(QStringLiteral("env")).toObject();
        for (const int peer : {0, 1})
            QCOMPARE(env.value(QStringLiteral("PAI_PORT_LIST_worker_%1_http").arg(peer)).toString(),
                     httpOf.value(peer));
    }
}

void tst_Scheduler::completionPolicy_data()
{
    QTest::addColumn<int>("taskNumber");
    QTest::addColumn<QJsonObject>("policy"); // fields of the role
    QTest::addColumn<QStringList>("ends");   // how tasks 0, 1, ... end, in that order
    QTest::addColumn<QString>("jobState");   // after them

    const QString ok = stateName(JobState::Succeeded);
    const QString failed = stateName(JobState::Failed);
    const QJsonValue null(QJsonValue::Null);
    QTest::newRow("one failure fails the job by default")
        << 3 << QJsonObject() << QStringList{ok, failed} << stateName(JobState::Failed);
    QTest::newRow("all succeeded")
        << 2 << QJsonObject() << QStringList{ok, ok} << stateName(JobState::Succeeded);
    QTest::newRow("minFailedTaskCount null: failures are tolerated")
        << 2 << QJsonObject{{QStringLiteral("minFailedTaskCount"), null}} << QStringList{failed, ok}
        << stateName(JobState::Succeeded);
    QTest::newRow("minFailedTaskCount 2: one failure is not enough")
        << 3 << QJsonObject{{QStringLiteral("minFailedTaskCount"), 2}} << QStringList{failed, ok}
        << stateName(JobState::Running);
    QTest::newRow("minFailedTaskCount 2: two are")
        << 3 << QJsonObject{{QStringLiteral("minFailedTaskCount"), 2}}
        << QStringList{failed, ok, failed} << stateName(JobState::Failed);
    QTest::newRow("minFailedTaskCount 2: all ended below it")
        << 3 << QJsonObject{{QStringLiteral("minFailedTaskCount"), 2}}
        << QStringList{failed, ok, ok} << stateName(JobState::Succeeded);
    QTest::newRow("minSucceededTaskCount 1 ends the job early")
        << 3 << QJsonObject{{QStringLiteral("minSucceededTaskCount"), 1}} << QStringList{ok}
        << stateName(JobState::Succeeded);
    QTest::newRow("minSucceededTaskCount 2: one is not enough")
        << 3 << QJsonObject{{QStringLiteral("minSucceededTaskCount"), 2}} << QStringList{ok}
        << stateName(JobState::Running);
}

void tst_Scheduler::completionPolicy()
{
    QFETCH(int, taskNumber);
    QFETCH(QJsonObject, policy);
    QFETCH(QStringList, ends);
    QFETCH(QString, jobState);

    const qint64 user = addUser(QStringLiteral("a@x"));
    addWorker(QStringLiteral("w1"), {0, 16, 64000, 8});
    Ask ask{taskNumber};
    ask.roleFields = policy;
    const qint64 job = submit(user, ask);
    QCOMPARE(*m_scheduler->schedule(), taskNumber);
    const QList<qint64> tasks = tasksOf(job);
    for (const qint64 task : tasks)
        QVERIFY(m_progress->taskStarted(task));
    for (qsizetype i = 0; i < ends.size(); ++i)
        endTask(tasks.at(i), ends.at(i));
    QCOMPARE(value(QStringLiteral("SELECT state FROM jobs WHERE id = ?"), {job}).toString(),
             jobState);
    // A job that ended early has its other tasks stopped.
    if (jobState != stateName(JobState::Running)) {
        for (qsizetype i = ends.size(); i < tasks.size(); ++i)
            QCOMPARE(value(QStringLiteral("SELECT cancel_requested FROM tasks WHERE id = ?"),
                           {tasks.at(i)})
                         .toInt(),
                     1);
    }
}

QTEST_GUILESS_MAIN(tst_Scheduler)
#include "tst_scheduler.moc"
