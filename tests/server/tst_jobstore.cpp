// The job store's guarded state changes on a real ddl.sqlite (or, as tst_jobstore_postgresql, a
// real PostgreSQL database): what the states allow happens, anything else is refused with a
// conflict that names both states, and the row stays as it was.
#include "pgcluster.h"
#include "store/database.h"
#include "store/jobstore.h"
#include "store/sql.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl;
using namespace ddl::server;

Q_DECLARE_METATYPE(ddl::JobState)

class tst_JobStore : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void jobMoves_data();
    void jobMoves();
    void taskEndsOnceAndResendIsNoChange();
    void waitingTaskCannotEnd();
    void onlyWaitingTaskIsPlaced();
    void retryStartsNextAttempt();
    void retryRefusedWhenUsedUpOrEnded();
    void preemptionSpendsNoRetry();
    void stopTasksStopsWaitingAndAsksRunning();
    void unknownStateInRowIsAnError();

private:
    // A job of two tasks of one role in the given states, attempt 1; returns the job id.
    qint64 addJob(JobState state, JobState taskState = JobState::Waiting, int retryCount = 0);
    QList<qint64> taskIds(qint64 jobId, int attempt = 1) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QSqlDatabase m_db;
    qint64 m_userId = 0;
};

void tst_JobStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString url = testDatabaseUrl();
    QVERIFY2(missingTestDatabase(url).isEmpty(), qPrintable(missingTestDatabase(url)));
    Result<QSqlDatabase> db = Database::open(m_dir->path(), u"tst_jobstore"_s, url);
    QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error().message));
    m_db = *db;
    Result<qint64> user = insertReturningId(m_db,
                                            u"INSERT INTO users (email, password_hash, created_at) "
                                            "VALUES ('a@example.org', 'x', 1)"_s);
    QVERIFY(user.ok());
    m_userId = *user;
}

void tst_JobStore::cleanup()
{
    m_db = {};
    QSqlDatabase::database(u"tst_jobstore"_s, false).close();
    QSqlDatabase::removeDatabase(u"tst_jobstore"_s);
    m_dir.reset();
}

qint64 tst_JobStore::addJob(JobState state, JobState taskState, int retryCount)
{
    static int serial = 0;
    ++serial;
    Result<qint64> jobId = insertReturningId(
        m_db,
        u"INSERT INTO jobs (uuid, user_id, name, kind, state, spec, package_sha256, commit_id, "
        "attempt, retry_count, created_at) VALUES (?, ?, ?, 'ddl', ?, '{}', '', '', 1, ?, 1)"_s,
        {u"uuid-%1"_s.arg(serial),
         m_userId,
         u"job-%1"_s.arg(serial),
         stateName(state),
         retryCount});
    if (!jobId)
        return 0;
    for (int index = 0; index < 2; ++index) {
        if (!runSql(m_db,
                    u"INSERT INTO tasks (job_id, attempt, task_index, role, role_index, state) "
                    "VALUES (?, 1, ?, 'worker', ?, ?)"_s,
                    {*jobId, index, index, stateName(taskState)}))
            return 0;
    }
    return *jobId;
}

QList<qint64> tst_JobStore::taskIds(qint64 jobId, int attempt) const
{
    QList<qint64> ids;
    const Result<QList<TaskRow>> tasks = JobStore(m_db).tasksOf(jobId, attempt);
    for (const TaskRow &task : tasks ? *tasks : QList<TaskRow>())
        ids << task.id;
    return ids;
}

void tst_JobStore::jobMoves_data()
{
    QTest::addColumn<JobState>("from");
    QTest::addColumn<JobState>("to");
    QTest::addColumn<bool>("allowed");
    for (const JobState from : AllJobStates) {
        for (const JobState to : AllJobStates) {
            const bool allowed = (from == JobState::Waiting && to != JobState::Waiting) ||
                                 (from == JobState::Running && isFinal(to));
            QTest::addRow("%s to %s", qPrintable(stateName(from)), qPrintable(stateName(to)))
                << from << to << allowed;
        }
    }
}

void tst_JobStore::jobMoves()
{
    QFETCH(JobState, from);
    QFETCH(JobState, to);
    QFETCH(bool, allowed);
    QCOMPARE(JobStore::jobMayMove(from, to), allowed);
    const qint64 jobId = addJob(from);
    QVERIFY(jobId > 0);
    JobStore store(m_db);
    const Status moved = store.moveJob(jobId, to, u"because"_s);
    QCOMPARE(moved.ok(), allowed);
    const Result<JobRow> row = store.job(jobId);
    QVERIFY(row.ok());
    if (allowed) {
        QCOMPARE(row->state, to);
        QCOMPARE(row->reason, u"because"_s);
        return;
    }
    QCOMPARE(row->state, from); // refused: the row is as it was
    QCOMPARE(moved.error().code, u"conflict"_s);
    QVERIFY2(moved.error().message.contains(stateName(from)) &&
                 moved.error().message.contains(stateName(to)),
             qPrintable(moved.error().message));
}

void tst_JobStore::taskEndsOnceAndResendIsNoChange()
{
    const qint64 jobId = addJob(JobState::Running, JobState::Running);
    const qint64 taskId = taskIds(jobId).value(0);
    JobStore store(m_db);
    const Result<bool> ended = store.endTask(taskId, {JobState::Failed, 3, u"oom"_s});
    QVERIFY(ended.ok());
    QVERIFY(*ended);
    // The worker sends its report again, or a late STOPPED arrives: the first end stands.
    for (const JobState again : {JobState::Failed, JobState::Stopped, JobState::Succeeded}) {
        const Result<bool> resent = store.endTask(taskId, {again, 0, {}});
        QVERIFY(resent.ok());
        QVERIFY(!*resent);
    }
    const Result<TaskRow> task = store.task(taskId);
    QVERIFY(task.ok());
    QCOMPARE(task->state, JobState::Failed);
    QCOMPARE(task->exitCode, std::optional<int>(3));
    QCOMPARE(task->message, u"oom"_s);
}

void tst_JobStore::waitingTaskCannotEnd()
{
    const qint64 jobId = addJob(JobState::Waiting);
    const qint64 taskId = taskIds(jobId).value(0);
    JobStore store(m_db);
    const Result<bool> ended = store.endTask(taskId, {JobState::Succeeded, 0, {}});
    QVERIFY(!ended.ok());
    QCOMPARE(ended.error().code, u"conflict"_s);
    QVERIFY(ended.error().message.contains(u"WAITING"_s));
    QCOMPARE(store.task(taskId)->state, JobState::Waiting);
    QVERIFY(!JobStore::taskMayMove(JobState::Succeeded, JobState::Running));
    QVERIFY(JobStore::taskMayMove(JobState::Waiting, JobState::Running));
}

void tst_JobStore::onlyWaitingTaskIsPlaced()
{
    const qint64 jobId = addJob(JobState::Waiting);
    const QList<qint64> ids = taskIds(jobId);
    Result<qint64> worker =
        insertReturningId(m_db,
                          u"INSERT INTO workers (name, hostname, address, token_hash, "
                          "cpus, memory_mb, gpus, slots, state, last_seen, created_at) "
                          "VALUES ('w1', 'h', '127.0.0.1', 't', 4, 1024, 2, 2, "
                          "'ONLINE', 1, 1)"_s);
    QVERIFY2(worker.ok(), worker.ok() ? "" : qPrintable(worker.error().message));
    const qint64 workerId = *worker;
    JobStore store(m_db);
    const Result<bool> placed = store.placeTask({ids.at(0), workerId, 40000, {0, 1}});
    QVERIFY(placed.ok());
    QVERIFY(*placed);
    QCOMPARE(store.task(ids.at(0))->state, JobState::Running);
    // The job was cancelled between the pass's read and its write: nothing changes.
    QVERIFY(store.stopTasks(jobId).ok());
    const Result<bool> late = store.placeTask({ids.at(1), workerId, 40001, {}});
    QVERIFY(late.ok());
    QVERIFY(!*late);
    QCOMPARE(store.task(ids.at(1))->state, JobState::Stopped);
}

void tst_JobStore::retryStartsNextAttempt()
{
    const qint64 jobId = addJob(JobState::Running, JobState::Failed, 1);
    JobStore store(m_db);
    QVERIFY(store.retryJob(jobId, u"retry 1 of 1"_s).ok());
    const Result<JobRow> job = store.job(jobId);
    QCOMPARE(job->state, JobState::Waiting);
    QCOMPARE(job->attempt, 2);
    QCOMPARE(job->reason, u"retry 1 of 1"_s);
    const Result<QList<TaskRow>> tasks = store.tasksOf(jobId, 2);
    QVERIFY(tasks.ok());
    QCOMPARE(tasks->size(), 2);
    for (const TaskRow &task : *tasks)
        QCOMPARE(task.state, JobState::Waiting);
    // The failed attempt keeps its tasks as they ended.
    QCOMPARE(store.tasksOf(jobId, 1)->first().state, JobState::Failed);
}

void tst_JobStore::retryRefusedWhenUsedUpOrEnded()
{
    JobStore store(m_db);
    const qint64 noRetries = addJob(JobState::Running, JobState::Failed, 0);
    const Status usedUp = store.retryJob(noRetries, {});
    QVERIFY(!usedUp.ok());
    QCOMPARE(usedUp.error().code, u"conflict"_s);
    QCOMPARE(store.job(noRetries)->attempt, 1);
    const qint64 stopped = addJob(JobState::Stopped, JobState::Stopped, 3);
    QVERIFY(!store.retryJob(stopped, {}).ok());
    QCOMPARE(store.job(stopped)->state, JobState::Stopped);
    QVERIFY(store.tasksOf(stopped, 2)->isEmpty());
}

// A preempted attempt (docs/owners.md) starts the next one like a retry, but the job's retries
// stay whole: retryCount 0 still refuses a retry after a failure, retryCount 1 allows one.
void tst_JobStore::preemptionSpendsNoRetry()
{
    JobStore store(m_db);
    const qint64 noRetries = addJob(JobState::Running, JobState::Running, 0);
    QVERIFY(store.requeueJob(noRetries, u"preempted on worker w: its owner needs the machine"_s));
    Result<JobRow> job = store.job(noRetries);
    QCOMPARE(job->state, JobState::Waiting);
    QCOMPARE(job->attempt, 2);
    QCOMPARE(job->preemptions, 1);
    QCOMPARE(job->failedAttempts(), 1);
    QCOMPARE(job->reason, u"preempted on worker w: its owner needs the machine"_s);
    QCOMPARE(store.tasksOf(noRetries, 2)->size(), 2);
    QCOMPARE(store.retryJob(noRetries, {}).error().code, u"conflict"_s);

    const qint64 oneRetry = addJob(JobState::Running, JobState::Running, 1);
    QVERIFY(store.requeueJob(oneRetry, u"preempted"_s));
    QVERIFY(store.requeueJob(oneRetry, u"preempted again"_s));
    QVERIFY(store.retryJob(oneRetry, u"retry 1 of 1"_s));
    job = store.job(oneRetry);
    QCOMPARE(job->attempt, 4);
    QCOMPARE(job->preemptions, 2);
    QVERIFY(!store.retryJob(oneRetry, {}).ok());

    const qint64 ended = addJob(JobState::Stopped, JobState::Stopped, 3);
    QVERIFY(!store.requeueJob(ended, u"preempted"_s).ok());
    QCOMPARE(store.job(ended)->preemptions, 0);
}

void tst_JobStore::stopTasksStopsWaitingAndAsksRunning()
{
    const qint64 jobId = addJob(JobState::Running, JobState::Waiting);
    const QList<qint64> ids = taskIds(jobId);
    QVERIFY(runSql(m_db, u"UPDATE tasks SET state = 'RUNNING' WHERE id = ?"_s, {ids.at(1)}).ok());
    JobStore store(m_db);
    QVERIFY(store.stopTasks(jobId).ok());
    QCOMPARE(store.task(ids.at(0))->state, JobState::Stopped);
    // A running task ends when its worker stops it; until then it is asked to.
    QCOMPARE(store.task(ids.at(1))->state, JobState::Running);
    QVERIFY(store.task(ids.at(1))->cancelRequested);
}

void tst_JobStore::unknownStateInRowIsAnError()
{
    const qint64 jobId = addJob(JobState::Waiting);
    QVERIFY(runSql(m_db, u"UPDATE jobs SET state = 'PAUSED' WHERE id = ?"_s, {jobId}).ok());
    JobStore store(m_db);
    const Result<JobRow> job = store.job(jobId);
    QVERIFY(!job.ok());
    QVERIFY(job.error().message.contains(u"'PAUSED'"_s));
    QVERIFY(!store.moveJob(jobId, JobState::Running, {}).ok());
}

QTEST_GUILESS_MAIN(tst_JobStore)
#include "tst_jobstore.moc"
