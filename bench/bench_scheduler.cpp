// Scheduler benchmark (a program that prints figures, not a test): the real scheduler code,
// in process, over a real SQLite store, against simulated workers.
//   1. throughput: 50,000 single-task jobs onto 5,000 workers
//   2. gangs: 3 jobs of 1,500 tasks against the same 4,500 tasks as single-task jobs
//   3. latency: p99 from submit to lease at 100 submits/s with 1,000 workers polling
// Usage: bench_scheduler [--jobs N] [--workers N] [--latency-seconds S]
#include "app/serverservices.h"
#include "store/database.h"
#include "store/sql.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QLoggingCategory>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <memory>

using namespace ddl;
using namespace ddl::server;

namespace {

// One store with a user, a package blob and enrolled workers.
struct Bench
{
    QTemporaryDir dir;
    QSqlDatabase db;
    std::unique_ptr<ServerServices> context;
    qint64 userId = 0;
    QString package;
    QList<qint64> workers;

    bool open(const QString &name, int workerCount, int gpus, int slotCount)
    {
        Result<QSqlDatabase> opened = Database::open(dir.path(), name);
        if (!opened) {
            std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
            return false;
        }
        db = *opened;
        // Setup is not what is measured: no fsync while filling the store.
        (void) runSql(db, QStringLiteral("PRAGMA synchronous=OFF"));
        context = std::make_unique<ServerServices>(db, dir.path(), 1 << 20);
        if (Status prepared = context->blobs.prepare(); !prepared)
            return fail(prepared.error());
        (void) context->auth.registerUser(QStringLiteral("bench@ddl.local"),
                                          QStringLiteral("bench-password"));
        Result<QSqlQuery> user = runSql(db, QStringLiteral("SELECT id FROM users"));
        if (!user || !user->next())
            return fail(Error::make(ErrorCode::Internal, QStringLiteral("no user")));
        userId = user->value(0).toLongLong();
        const QByteArray bytes("package");
        package = QString::fromLatin1(
            QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
        const QString owner = QStringLiteral("user:") + QString::number(userId);
        Result<UploadState> upload = context->uploads.create(owner, bytes.size(), package);
        if (!upload)
            return fail(upload.error());
        if (Result<UploadState> written = context->uploads.writeChunk(owner, upload->id, 0, bytes);
            !written)
            return fail(written.error());
        const Result<QString> token = context->workers.createEnrollToken();
        if (!token)
            return fail(token.error());
        for (int i = 0; i < workerCount; ++i) {
            Result<QJsonObject> worker = context->workers.enroll(
                QJsonObject{{QStringLiteral("enroll_token"), *token},
                 {QStringLiteral("name"), QStringLiteral("sim-%1").arg(i)},
                 {QStringLiteral("hostname"), QStringLiteral("sim-%1").arg(i)},
                 {QStringLiteral("cpus"), 64},
                 {QStringLiteral("memory_mb"), 256 * 1024},
                 {QStringLiteral("gpus"), gpus},
                 {QStringLiteral("slots"), slotCount}},
                QStringLiteral("10.%1.%2.%3").arg(i / 65536).arg(i / 256 % 256).arg(i % 256));
            if (!worker)
                return fail(worker.error());
            workers << worker->value(QStringLiteral("worker_id")).toInteger();
        }
        return true;
    }

    static bool fail(const Error &error)
    {
        std::fprintf(stderr, "bench setup: %s\n", qPrintable(error.message));
        return false;
    }

    void durable() { (void) runSql(db, QStringLiteral("PRAGMA synchronous=FULL")); }

    bool submit(const QString &name, int tasks, int gpus)
    {
        const QJsonObject spec{
            {QStringLiteral("kind"), QStringLiteral("openpai")},
            {QStringLiteral("jobName"), name},
            {QStringLiteral("image"), QStringLiteral("none")},
            {QStringLiteral("taskRoles"),
             QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("main")},
                                    {QStringLiteral("taskNumber"), tasks},
                                    {QStringLiteral("cpuNumber"), 1},
                                    {QStringLiteral("memoryMB"), 100},
                                    {QStringLiteral("gpuNumber"), gpus},
                                    {QStringLiteral("command"), QStringLiteral("true")}}}}};
        Result<QJsonObject> job = context->jobs.submit(
            userId,
            {{QStringLiteral("spec"), spec},
             {QStringLiteral("package"),
              QJsonObject{{QStringLiteral("sha256"), package}, {QStringLiteral("commit"), {}}}}});
        if (!job)
            std::fprintf(stderr, "submit: %s\n", qPrintable(job.error().message));
        return job.ok();
    }

    // Passes until nothing more can be placed; returns tasks placed and the seconds it took.
    std::pair<int, double> scheduleAll()
    {
        QElapsedTimer timer;
        timer.start();
        int total = 0;
        for (;;) {
            Result<int> placed = context->scheduler.schedule();
            if (!placed) {
                std::fprintf(stderr, "schedule: %s\n", qPrintable(placed.error().message));
                break;
            }
            if (*placed == 0)
                break;
            total += *placed;
        }
        return {total, timer.nsecsElapsed() / 1e9};
    }
};

void throughput(int jobs, int workers)
{
    Bench bench;
    if (!bench.open(QStringLiteral("throughput"), workers, 0, (jobs + workers - 1) / workers))
        return;
    for (int i = 0; i < jobs; ++i)
        bench.submit(QStringLiteral("job-%1").arg(i), 1, 0);
    bench.durable();
    const auto [placed, seconds] = bench.scheduleAll();
    std::printf("throughput: %d single-task jobs onto %d workers: %d placed in %.3f s = %.0f "
                "placements/s (goal >= 810; Slurm's validated 500 jobs/s x1.6 = 800)\n",
                jobs, workers, placed, seconds, placed / seconds);
}

void gangs(int workers)
{
    constexpr int GangCount = 3;
    constexpr int GangSize = 1500;
    double singleSeconds = 0;
    {
        Bench bench;
        if (!bench.open(QStringLiteral("singles"), workers, 4, 4))
            return;
        for (int i = 0; i < GangCount * GangSize; ++i)
            bench.submit(QStringLiteral("single-%1").arg(i), 1, 1);
        bench.durable();
        const auto [placed, seconds] = bench.scheduleAll();
        singleSeconds = seconds;
        std::printf("gangs: %d single-task jobs (1 GPU each) onto %d workers: %d placed in %.3f "
                    "s\n",
                    GangCount * GangSize, workers, placed, seconds);
    }
    Bench bench;
    if (!bench.open(QStringLiteral("gangs"), workers, 4, 4))
        return;
    for (int i = 0; i < GangCount; ++i)
        bench.submit(QStringLiteral("gang-%1").arg(i), GangSize, 1);
    bench.durable();
    const auto [placed, seconds] = bench.scheduleAll();
    std::printf("gangs: %d gangs of %d tasks (1 GPU each) onto %d workers: %d placed in %.3f s = "
                "%.2fx the single-task jobs (goal <= 1.5x)\n",
                GangCount, GangSize, workers, placed, seconds, seconds / singleSeconds);
}

// Submits at a fixed rate while simulated workers poll for leases the way ddl-worker does, and
// finish each task at once so that capacity stays free.
void latency(int workers, int seconds)
{
    Bench bench;
    if (!bench.open(QStringLiteral("latency"), workers, 0, 2))
        return;
    bench.durable();
    QHash<QString, qint64> submittedAt; // job name → ns
    QList<double> latencies;
    QElapsedTimer clock;
    clock.start();
    int submitted = 0;
    QTimer submitter;
    submitter.setTimerType(Qt::PreciseTimer);
    QObject::connect(&submitter, &QTimer::timeout, [&] {
        // Keep the rate: submit as many as are due.
        while (submitted < clock.elapsed() / 10) {
            const QString name = QStringLiteral("lat-%1").arg(submitted++);
            submittedAt.insert(name, clock.nsecsElapsed());
            bench.submit(name, 1, 0);
        }
    });
    submitter.start(2);
    constexpr int PollMs = 250;
    QTimer poller;
    int nextWorker = 0;
    // Each worker polls every PollMs, spread evenly: a few workers per tick.
    QObject::connect(&poller, &QTimer::timeout, [&] {
        const int perTick = std::max(1, workers * 5 / PollMs);
        for (int i = 0; i < perTick; ++i) {
            const qint64 worker = bench.workers.at(nextWorker);
            nextWorker = (nextWorker + 1) % workers;
            Result<QJsonArray> leases = bench.context->scheduler.lease(worker);
            if (!leases)
                continue;
            for (const QJsonValue &value : *leases) {
                const QJsonObject lease = value.toObject();
                const QString name = lease.value(QStringLiteral("job_name")).toString();
                latencies << (clock.nsecsElapsed() - submittedAt.value(name)) / 1e6;
                const qint64 taskId = lease.value(QStringLiteral("task_id")).toInteger();
                (void) bench.context->progress.taskStarted(taskId);
                (void) bench.context->progress.taskEnded(taskId, {JobState::Succeeded, 0, {}});
            }
        }
    });
    poller.start(5);
    QTimer::singleShot(seconds * 1000, qApp, &QCoreApplication::quit);
    QCoreApplication::exec();
    std::sort(latencies.begin(), latencies.end());
    if (latencies.isEmpty()) {
        std::printf("latency: no job was leased\n");
        return;
    }
    const auto at = [&](double q) { return latencies.at(int(q * (latencies.size() - 1))); };
    std::printf("latency: %d submits at 100/s, %d workers polling every %d ms: %lld leased; "
                "submit->lease p50 %.0f ms, p99 %.0f ms, max %.0f ms (goal p99 <= 1000 ms)\n",
                submitted, workers, PollMs, qlonglong(latencies.size()), at(0.5), at(0.99),
                latencies.last());
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("ddl.*.info=false"));
    QCommandLineParser parser;
    const QCommandLineOption jobsOption(QStringLiteral("jobs"), QStringLiteral("jobs"),
                                        QStringLiteral("n"), QStringLiteral("50000"));
    const QCommandLineOption workersOption(QStringLiteral("workers"), QStringLiteral("workers"),
                                           QStringLiteral("n"), QStringLiteral("5000"));
    const QCommandLineOption secondsOption(QStringLiteral("latency-seconds"),
                                           QStringLiteral("seconds"), QStringLiteral("s"),
                                           QStringLiteral("20"));
    parser.addOptions({jobsOption, workersOption, secondsOption});
    parser.addHelpOption();
    parser.process(app);
    throughput(parser.value(jobsOption).toInt(), parser.value(workersOption).toInt());
    gangs(parser.value(workersOption).toInt());
    latency(1000, parser.value(secondsOption).toInt());
    return 0;
}
