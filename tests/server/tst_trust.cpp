// The trust score's formula (docs/trust.md), the canary's known answer checked against a real
// python3 running the canary's own command, and canary verdicts on a real SQLite store.
#include "app/serverconfig.h"
#include "app/serverservices.h"
#include "store/database.h"
#include "store/sql.h"
#include "wire/jobstate.h"
#include "workers/canaryservice.h"
#include "workers/trustscore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;
using namespace ddl::server;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(TrustInputs)

class tst_Trust : public QObject
{
    Q_OBJECT
private slots:
    void score_data();
    void score();
    void honestPythonGivesTheAnswer();
    void challengesDiffer();
    void canariesAreAServerSetting();
    void inconclusiveCanaryUnverifiesAndBacksOff();
    void preemptedCanaryUnverifies();
    void canaryStartsOncePerWorker();
    void canaryTasksAreNotInTheLedger();
};

namespace {

// A real SQLite store with the server's services over it, and one online worker (verified, its
// canary due) as WorkerService registers one.
struct Store
{
    QTemporaryDir dir;
    QSqlDatabase db;
    std::unique_ptr<ServerServices> services;
    qint64 workerId = 0;

    bool open()
    {
        const ddl::Result<QSqlDatabase> opened = Database::open(dir.path(), u"tst_trust"_s);
        if (!opened) {
            qWarning("%s", qPrintable(opened.error().message));
            return false;
        }
        db = *opened;
        services = std::make_unique<ServerServices>(db, dir.path(), 1LL << 30);
        if (!services->blobs.prepare())
            return false;
        const qint64 now = nowMs();
        const ddl::Result<QSqlQuery> worker = runSql(
            db,
            u"INSERT INTO workers (name, hostname, address, token_hash, cpus, memory_mb, gpus, "
            "slots, state, last_seen, created_at, gpu_type, runtimes, verified, next_canary_at) "
            "VALUES ('w', 'w', 'addr-w', 'hash-w', 4, 4000, 0, 2, 'ONLINE', ?, ?, '', "
            "'bubblewrap', 1, 0)"_s,
            {now, now});
        if (!worker)
            return false;
        workerId = worker->lastInsertId().toLongLong();
        return true;
    }
    ~Store()
    {
        services.reset();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(u"tst_trust"_s);
    }
    QVariant value(const QString &sql, const QVariantList &binds = {})
    {
        ddl::Result<QSqlQuery> row = runSql(db, sql, binds);
        return row && row->next() ? row->value(0) : QVariant();
    }
    // The worker's pending canary job, 0 if none.
    qint64 pendingCanary()
    {
        return value(u"SELECT id FROM jobs WHERE canary_worker_id = ? AND canary_verdict IS "
                     "NULL"_s,
                     {workerId})
            .toLongLong();
    }
    bool verified() { return value(u"SELECT verified FROM workers WHERE id = ?"_s, {workerId}).toBool(); }
    qint64 nextCanaryIn()
    {
        return value(u"SELECT next_canary_at FROM workers WHERE id = ?"_s, {workerId})
                   .toLongLong() -
               nowMs();
    }
    // Its canary ended FAILED without an exit code (a worker that fails it before it starts).
    void failBeforeStart(qint64 jobId)
    {
        runSql(db, u"UPDATE tasks SET state = ? WHERE job_id = ?"_s, {stateName(JobState::Failed), jobId});
        runSql(db, u"UPDATE jobs SET state = ? WHERE id = ?"_s, {stateName(JobState::Failed), jobId});
    }
};

} // namespace

void tst_Trust::score_data()
{
    QTest::addColumn<TrustInputs>("inputs");
    QTest::addColumn<int>("score");
    constexpr qint64 hour = 3600 * 1000;
    QTest::newRow("new worker: only its tasks part") << TrustInputs{} << 30;
    QTest::newRow("first canary passed") << TrustInputs{.canariesPassed = 1} << 40;
    QTest::newRow("a day online, 4 canaries, nothing failed")
        << TrustInputs{.uptimeMs = 24 * hour, .tasksEnded = 50, .canariesPassed = 4} << 100;
    QTest::newRow("canaries count up to 4")
        << TrustInputs{.uptimeMs = 48 * hour, .canariesPassed = 9} << 100;
    QTest::newRow("half a day online") << TrustInputs{.uptimeMs = 12 * hour} << 45;
    QTest::newRow("each heartbeat loss costs 10 of the uptime part")
        << TrustInputs{.uptimeMs = 24 * hour, .heartbeatLosses = 2} << 40;
    QTest::newRow("the uptime part is never below 0")
        << TrustInputs{.uptimeMs = hour, .heartbeatLosses = 5} << 30;
    QTest::newRow("1 of 8 tasks failed for the worker")
        << TrustInputs{.tasksEnded = 8, .tasksFailedByWorker = 1} << 27;
    QTest::newRow("all its tasks failed for the worker")
        << TrustInputs{.tasksEnded = 10, .tasksFailedByWorker = 10} << 5;
    QTest::newRow("a failed canary costs 20")
        << TrustInputs{.canariesPassed = 3, .canariesFailed = 1} << 40;
    QTest::newRow("quarantined: 0")
        << TrustInputs{.uptimeMs = 24 * hour, .canariesPassed = 4, .quarantined = true} << 0;
}

void tst_Trust::score()
{
    QFETCH(TrustInputs, inputs);
    QFETCH(int, score);
    QCOMPARE(TrustScore::of(inputs), score);
}

void tst_Trust::honestPythonGivesTheAnswer()
{
    // The canary project's main() as the DDL runner calls it, in a real python3, with the seed
    // in the environment as the job's jobEnvs put it.
    const CanaryChallenge challenge = CanaryChallenge::make();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile main(dir.filePath(u"main.py"_s));
    QVERIFY(main.open(QIODevice::WriteOnly));
    main.write(CanaryChallenge::mainPy());
    main.close();
    QProcess python;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString(CanaryChallenge::SeedVariable), challenge.seed);
    environment.insert(u"PYTHONPATH"_s, dir.path());
    python.setProcessEnvironment(environment);
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(u"python3"_s,
                 {u"-c"_s, u"import sys, main; main.main(sys.argv[1], sys.argv[1])"_s, dir.path()});
    QVERIFY2(python.waitForFinished(60000), qPrintable(python.errorString()));
    QVERIFY2(python.exitCode() == 0, python.readAll().constData());
    QFile file(dir.filePath(QString(CanaryChallenge::OutputFile)));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray written = file.readAll();
    QCOMPARE(written, CanaryChallenge::expectedOutput(challenge.seed));
    QCOMPARE(
        QString::fromLatin1(QCryptographicHash::hash(written, QCryptographicHash::Sha256).toHex()),
        challenge.answerSha256);
}

void tst_Trust::challengesDiffer()
{
    // A fresh seed each time: a worker cannot remember the answer.
    const CanaryChallenge a = CanaryChallenge::make();
    const CanaryChallenge b = CanaryChallenge::make();
    QVERIFY(a.seed != b.seed);
    QVERIFY(a.answerSha256 != b.answerSha256);
    QCOMPARE(a.seed.size(), 32);
}

void tst_Trust::canariesAreAServerSetting()
{
    // Off unless the admin turns them on (docs/trust.md: why).
    QCOMPARE(ServerConfig().canaries, false);
    QTemporaryDir dir;
    const auto configWith = [&dir](const QByteArray &yaml) {
        const QString path = dir.filePath(u"server.yaml"_s);
        QFile file(path);
        file.open(QIODevice::WriteOnly | QIODevice::Truncate);
        file.write(yaml);
        file.close();
        return ServerConfig::fromYamlFile(path);
    };
    const ddl::Result<ServerConfig> on =
        configWith("data_dir: /x\ncanaries: true\ncanary_interval_hours: 6\n");
    QVERIFY2(on.ok(), qPrintable(on.ok() ? QString() : on.error().message));
    QCOMPARE(on->canaries, true);
    QCOMPARE(on->canaryIntervalHours, 6.0);
    const ddl::Result<ServerConfig> never = configWith("canary_interval_hours: 0\n");
    QVERIFY(!never.ok());
    QVERIFY2(never.error().message.contains(u"canary_interval_hours must be more than 0"_s),
             qPrintable(never.error().message));
}

void tst_Trust::inconclusiveCanaryUnverifiesAndBacksOff()
{
    Store store;
    QVERIFY(store.open());
    store.services->canaries.tick();
    const qint64 first = store.pendingCanary();
    QVERIFY(first > 0);
    // Failing its canary in a way that tells nothing does not keep the worker verified, and
    // the next one comes a minute later, then two, each inconclusive one doubling the wait.
    store.failBeforeStart(first);
    store.services->canaries.tick();
    QVERIFY(!store.verified());
    QCOMPARE(store.pendingCanary(), 0);
    QVERIFY2(qAbs(store.nextCanaryIn() - 60000) < 5000, qPrintable(QString::number(store.nextCanaryIn())));
    runSql(store.db, u"UPDATE workers SET next_canary_at = 0"_s);
    store.services->canaries.tick();
    const qint64 second = store.pendingCanary();
    QVERIFY(second > first);
    store.failBeforeStart(second);
    store.services->canaries.tick();
    QVERIFY2(qAbs(store.nextCanaryIn() - 120000) < 5000, qPrintable(QString::number(store.nextCanaryIn())));
    QCOMPARE(store.value(u"SELECT COUNT(*) FROM jobs"_s).toInt(), 2);
}

void tst_Trust::preemptedCanaryUnverifies()
{
    Store store;
    QVERIFY(store.open());
    store.services->canaries.tick();
    const qint64 canary = store.pendingCanary();
    QVERIFY(canary > 0);
    store.services->canaries.tick();
    QVERIFY(store.verified()); // running: the worker keeps what it had
    // Its worker reports it preempted (JobStore requeues it): the worker awaits a canary again.
    runSql(store.db,
           u"UPDATE jobs SET state = ?, preemptions = preemptions + 1 WHERE id = ?"_s,
           {stateName(JobState::Waiting), canary});
    store.services->canaries.tick();
    QVERIFY(!store.verified());
    QCOMPARE(store.pendingCanary(), canary); // still the one canary, requeued
}

void tst_Trust::canaryStartsOncePerWorker()
{
    // Two servers that both found the worker due (a leader handover): the second start finds
    // the first one's canary in its own transaction and adds none.
    Store store;
    QVERIFY(store.open());
    QVERIFY(store.services->canaries.start(store.workerId, u"w"_s));
    QVERIFY(store.services->canaries.start(store.workerId, u"w"_s));
    QCOMPARE(store.value(u"SELECT COUNT(*) FROM jobs WHERE canary_worker_id = ?"_s,
                         {store.workerId})
                 .toInt(),
             1);
}

void tst_Trust::canaryTasksAreNotInTheLedger()
{
    Store store;
    QVERIFY(store.open());
    store.services->canaries.tick();
    const qint64 canary = store.pendingCanary();
    QVERIFY(canary > 0);
    const qint64 task =
        store.value(u"SELECT id FROM tasks WHERE job_id = ?"_s, {canary}).toLongLong();
    const qint64 now = nowMs();
    runSql(store.db,
           u"UPDATE tasks SET worker_id = ?, state = ?, started_at = ?, finished_at = ? WHERE id "
           "= ?"_s,
           {store.workerId, stateName(JobState::Succeeded), now - 1000, now, task});
    QVERIFY(store.services->ledger.recordTaskEnd(task, false));
    QCOMPARE(store.value(u"SELECT COUNT(*) FROM ledger_tasks"_s).toInt(), 0);
}

QTEST_GUILESS_MAIN(tst_Trust)
#include "tst_trust.moc"
