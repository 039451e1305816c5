#include "canaryservice.h"

#include "blobs/bloblocator.h"
#include "jobspec/jobspec.h"
#include "packaging/tarzstwriter.h"
#include "scheduler/scheduler.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "trustservice.h"
#include "wire/jobstate.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QUuid>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcCanaries, "ddl.server.canaries")

namespace ddl::server {

QByteArray CanaryChallenge::expectedOutput(const QString &seed)
{
    QByteArray digest = seed.toUtf8();
    for (int round = 0; round < Rounds; ++round)
        digest = QCryptographicHash::hash(digest, QCryptographicHash::Sha256).toHex();
    return digest + '\n';
}

QByteArray CanaryChallenge::mainPy()
{
    return QStringLiteral(
               "import functools\nimport hashlib\nimport os\n\n\n"
               "def main(dataset_dir, model_output_dir):\n"
               "    seed = os.environ[\"%1\"].encode()\n"
               "    digest = functools.reduce(lambda value, _: "
               "hashlib.sha256(value).hexdigest().encode(), range(%2), seed)\n"
               "    with open(os.path.join(model_output_dir, \"%3\"), \"wb\") as output:\n"
               "        output.write(digest + b\"\\n\")\n")
        .arg(SeedVariable)
        .arg(Rounds)
        .arg(OutputFile)
        .toUtf8();
}

CanaryChallenge CanaryChallenge::forSeed(const QString &seed)
{
    return CanaryChallenge{
        seed,
        QString::fromLatin1(
            QCryptographicHash::hash(expectedOutput(seed), QCryptographicHash::Sha256).toHex())};
}

CanaryChallenge CanaryChallenge::make()
{
    QByteArray random(16, Qt::Uninitialized);
    QRandomGenerator::system()->generate(random.begin(), random.end());
    return forSeed(QString::fromLatin1(random.toHex()));
}

CanaryService::CanaryService(const QSqlDatabase &db, BlobStorage &blobs, Scheduler &scheduler)
    : m_db(db)
    , m_blobs(blobs)
    , m_scheduler(scheduler)
{
}

Result<QString> CanaryService::packageSha256()
{
    if (!m_packageSha256.isEmpty() && BlobLocator(m_db, m_blobs).has(m_packageSha256))
        return m_packageSha256;
    // Reproducible (mtime 0, fixed permissions): every server makes the same blob.
    const QString partId = u"canary-package"_s;
    const QByteArray main = CanaryChallenge::mainPy();
    TarZstWriter writer;
    if (Status opened = writer.open(m_blobs.partPath(partId)); !opened)
        return opened.error();
    if (Status begun = writer.beginFile("main.py", 0644, main.size(), 0); !begun)
        return begun.error();
    if (Status wrote = writer.writeData(main.constData(), main.size()); !wrote)
        return wrote.error();
    const Result<WrittenArchive> written = writer.commit();
    if (!written)
        return written.error();
    if (BlobLocator(m_db, m_blobs).has(written->sha256)) {
        m_blobs.discard(partId);
    } else if (Status placed =
                   m_blobs.moveIntoPlace(partId, written->sha256, BlobStorage::Sync::Now);
               !placed) {
        return placed.error();
    }
    if (Result<QSqlQuery> stored = runSql(m_db,
                                          u"INSERT INTO blobs (sha256, size, created_at) VALUES "
                                          "(?, ?, ?) ON CONFLICT (sha256) DO NOTHING"_s,
                                          {written->sha256, written->size, nowMs()});
        !stored)
        return stored.error();
    m_packageSha256 = written->sha256;
    return m_packageSha256;
}

void CanaryService::tick()
{
    if (Status judged = judgeEnded(); !judged)
        qCWarning(lcCanaries).noquote() << "cannot judge canaries:" << judged.error().message;
    if (Status judged = judgeOverdue(); !judged)
        qCWarning(lcCanaries).noquote() << "cannot judge overdue canaries:"
                                        << judged.error().message;
    if (Status marked = unverifyPreempted(); !marked)
        qCWarning(lcCanaries).noquote() << "cannot mark preempted canaries:"
                                        << marked.error().message;
    if (Status started = startDue(); !started)
        qCWarning(lcCanaries).noquote() << "cannot start canaries:" << started.error().message;
}

qint64 CanaryService::nextCanaryAt() const
{
    // Uniform in [0.5, 1.5] intervals: a worker cannot tell when the next one comes.
    return nowMs() + qint64(m_intervalMs * (0.5 + QRandomGenerator::global()->generateDouble()));
}

Status CanaryService::judgeEnded()
{
    Result<QSqlQuery> ended = runSql(
        m_db,
        u"SELECT j.id, j.state, j.canary_worker_id, j.canary_answer, (SELECT a.sha256 FROM "
        "artifacts a WHERE a.job_id = j.id AND a.path = ?) AS output, (SELECT t.exit_code FROM "
        "tasks t WHERE t.job_id = j.id ORDER BY t.id DESC LIMIT 1) AS exit_code, (SELECT "
        "t.message FROM tasks t WHERE t.job_id = j.id ORDER BY t.id DESC LIMIT 1) AS message "
        "FROM jobs j WHERE j.canary_worker_id IS NOT NULL AND j.canary_verdict IS NULL AND "
        "j.state IN (?, ?, ?)"_s,
        {QString(CanaryChallenge::OutputFile),
         stateName(JobState::Succeeded),
         stateName(JobState::Failed),
         stateName(JobState::Stopped)});
    if (!ended)
        return ended.error();
    struct Verdict
    {
        qint64 jobId = 0;
        qint64 workerId = 0;
        std::optional<bool> passed; // nullopt: tells nothing
        QString text;
    };
    QList<Verdict> verdicts;
    while (ended->next()) {
        const QSqlQuery &row = *ended;
        Verdict verdict{row.value(u"id"_s).toLongLong(),
                        row.value(u"canary_worker_id"_s).toLongLong(),
                        std::nullopt,
                        {}};
        const QString state = row.value(u"state"_s).toString();
        const QString answer = row.value(u"canary_answer"_s).toString();
        const QString output = row.value(u"output"_s).toString();
        const QVariant exitCode = row.value(u"exit_code"_s);
        if (state == stateName(JobState::Succeeded) && output == answer) {
            verdict.passed = true;
            verdict.text = u"passed"_s;
        } else if (state == stateName(JobState::Succeeded)) {
            verdict.passed = false;
            verdict.text =
                output.isEmpty()
                    ? u"failed canary job %1: it wrote no %2"_s.arg(verdict.jobId)
                          .arg(CanaryChallenge::OutputFile)
                    : u"failed canary job %1: its %2 has SHA-256 %3, not %4"_s.arg(verdict.jobId)
                          .arg(CanaryChallenge::OutputFile)
                          .arg(output.left(12), answer.left(12));
        } else if (state == stateName(JobState::Failed) && !exitCode.isNull()) {
            verdict.passed = false;
            verdict.text = u"failed canary job %1: it exited with code %2"_s.arg(verdict.jobId)
                               .arg(exitCode.toInt());
        } else {
            verdict.text =
                QString(QLatin1String(InconclusivePrefix) + u" %1 %2"_s).arg(state, row.value(u"message"_s).toString()).trimmed();
        }
        verdicts.append(verdict);
    }
    ended->finish();
    for (const Verdict &verdict : std::as_const(verdicts)) {
        Transaction transaction(m_db);
        if (Status begun = transaction.begin(); !begun)
            return begun;
        Result<QSqlQuery> marked = runSql(m_db,
                                          u"UPDATE jobs SET canary_verdict = ? WHERE id = ? AND "
                                          "canary_verdict IS NULL"_s,
                                          {verdict.text, verdict.jobId});
        if (!marked)
            return marked.error();
        if (marked->numRowsAffected() <= 0)
            continue; // judged by another server meanwhile
        TrustService trust(m_db);
        if (verdict.passed.has_value()) {
            if (Status recorded = trust.recordCanary(
                    verdict.workerId, *verdict.passed, verdict.text, nextCanaryAt());
                !recorded)
                return recorded;
        } else {
            // Unverified until a canary passes: a worker cannot keep its verification by
            // failing canaries in ways that tell nothing.
            const Result<qint64> delay = retryDelayMs(verdict.workerId);
            if (!delay)
                return delay.error();
            if (Result<QSqlQuery> later = runSql(m_db,
                                                 u"UPDATE workers SET verified = 0, "
                                                 "next_canary_at = ? WHERE id = ?"_s,
                                                 {nowMs() + *delay, verdict.workerId});
                !later)
                return later.error();
        }
        if (Status committed = transaction.commit(); !committed)
            return committed;
        if (verdict.passed.has_value() && !*verdict.passed)
            qCWarning(lcCanaries).noquote()
                << "worker" << verdict.workerId << "quarantined:" << verdict.text;
        else
            qCInfo(lcCanaries).noquote()
                << "worker" << verdict.workerId << "canary" << verdict.jobId << verdict.text;
    }
    return Ok{};
}

Result<qint64> CanaryService::retryDelayMs(qint64 workerId)
{
    // 60 s x 2^6 passes the hour: the latest seven verdicts are enough to count.
    Result<QSqlQuery> verdicts = runSql(m_db,
                                        u"SELECT canary_verdict FROM jobs WHERE canary_worker_id = "
                                        "? AND canary_verdict IS NOT NULL ORDER BY id DESC "
                                        "LIMIT 7"_s,
                                        {workerId});
    if (!verdicts)
        return verdicts.error();
    qint64 delay = RetryAfterInconclusiveMs / 2;
    while (verdicts->next() &&
           verdicts->value(0).toString().startsWith(QLatin1String(InconclusivePrefix)))
        delay = std::min(delay * 2, MaxRetryAfterInconclusiveMs);
    return std::max(delay, RetryAfterInconclusiveMs);
}

Status CanaryService::judgeOverdue()
{
    Result<QSqlQuery> overdue = runSql(m_db,
                                       u"SELECT id, canary_worker_id FROM jobs WHERE "
                                       "canary_worker_id IS NOT NULL AND canary_verdict IS NULL "
                                       "AND created_at < ?"_s,
                                       {nowMs() - m_deadlineMs});
    if (!overdue)
        return overdue.error();
    QList<std::pair<qint64, qint64>> jobs;
    while (overdue->next())
        jobs.append({overdue->value(0).toLongLong(), overdue->value(1).toLongLong()});
    overdue->finish();
    for (const auto &[jobId, workerId] : std::as_const(jobs)) {
        const QString reason =
            u"failed canary job %1: not done within the canary deadline of %2 s"_s.arg(jobId).arg(
                m_deadlineMs / 1000);
        Transaction transaction(m_db);
        if (Status begun = transaction.begin(); !begun)
            return begun;
        Result<QSqlQuery> marked = runSql(m_db,
                                          u"UPDATE jobs SET canary_verdict = ? WHERE id = ? AND "
                                          "canary_verdict IS NULL"_s,
                                          {reason, jobId});
        if (!marked)
            return marked.error();
        if (marked->numRowsAffected() <= 0)
            continue;
        JobStore store(m_db);
        const Result<JobRow> current = store.job(jobId);
        if (!current)
            return current.error();
        if (!isFinalState(stateName(current->state))) {
            if (Status stopped = store.stopTasks(jobId); !stopped)
                return stopped;
            if (Status stopped = store.moveJob(jobId, JobState::Stopped, reason); !stopped)
                return stopped;
        }
        if (Status recorded = TrustService(m_db).recordCanary(workerId, false, reason, nextCanaryAt());
            !recorded)
            return recorded;
        if (Status committed = transaction.commit(); !committed)
            return committed;
        m_scheduler.dequeue(jobId);
        qCWarning(lcCanaries).noquote() << "worker" << workerId << "quarantined:" << reason;
    }
    return Ok{};
}

Status CanaryService::unverifyPreempted()
{
    // A preempted canary is requeued; meanwhile its worker gets no user's work.
    const Result<QSqlQuery> marked =
        runSql(m_db,
               u"UPDATE workers SET verified = 0 WHERE verified = 1 AND id IN (SELECT "
               "canary_worker_id FROM jobs WHERE canary_worker_id IS NOT NULL AND "
               "canary_verdict IS NULL AND preemptions > 0)"_s);
    return marked ? Status(Ok{}) : Status(marked.error());
}

Status CanaryService::startDue()
{
    Result<QSqlQuery> due = runSql(
        m_db,
        u"SELECT id, name FROM workers w WHERE state = 'ONLINE' AND quarantined = 0 AND slots > 0 "
        "AND next_canary_at <= ? AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.canary_worker_id = "
        "w.id AND j.canary_verdict IS NULL) ORDER BY id LIMIT 100"_s,
        {nowMs()});
    if (!due)
        return due.error();
    QList<std::pair<qint64, QString>> workers;
    while (due->next())
        workers.append({due->value(u"id"_s).toLongLong(), due->value(u"name"_s).toString()});
    due->finish();
    for (const auto &[workerId, name] : std::as_const(workers)) {
        if (Status started = start(workerId, name); !started)
            return started;
    }
    return Ok{};
}

Result<qint64> CanaryService::systemUserId()
{
    if (m_systemUserId > 0)
        return m_systemUserId;
    // No one logs in as it: registration takes only email addresses, and "!" is no hash.
    Result<QSqlQuery> inserted = runSql(m_db,
                                        u"INSERT INTO users (email, password_hash, created_at) "
                                        "VALUES (?, '!', ?) ON CONFLICT (email) DO NOTHING"_s,
                                        {QString(SystemUser), nowMs()});
    if (!inserted)
        return inserted.error();
    Result<QSqlQuery> user =
        runSql(m_db, u"SELECT id FROM users WHERE email = ?"_s, {QString(SystemUser)});
    if (!user)
        return user.error();
    if (!user->next())
        return Error::make(ErrorCode::Internal, u"the canary user could not be made"_s);
    m_systemUserId = user->value(u"id"_s).toLongLong();
    return m_systemUserId;
}

Status CanaryService::start(qint64 workerId, const QString &workerName)
{
    const Result<qint64> userId = systemUserId();
    if (!userId)
        return userId.error();
    const Result<QString> package = packageSha256();
    if (!package)
        return package.error();
    const CanaryChallenge challenge = CanaryChallenge::make();
    JobSpec spec;
    spec.kind = JobSpec::Kind::Ddl;
    // A name that does not say what it is (the reason, which the worker never sees, does).
    spec.jobName = u"run-%1"_s.arg(challenge.seed.left(8));
    TaskRole role;
    role.name = u"worker"_s;
    role.taskNumber = 1;
    role.cpuNumber = 1;
    role.memoryMB = 128;
    role.gpuNumber = 0;
    spec.taskRoles = {role};
    spec.jobEnvs = {{QString(CanaryChallenge::SeedVariable), challenge.seed}};
    NewJob job;
    job.userId = *userId;
    job.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    job.name = spec.jobName;
    job.kind = JobSpec::kindName(spec.kind);
    job.spec = spec.toJson();
    job.packageSha256 = *package;
    job.priority = Priority;
    job.reason = u"canary for worker %1 (%2)"_s.arg(workerId).arg(workerName);
    job.roles = {{role.name, 1}};
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun;
    // Claims the worker's canary in this transaction: another server (a leader handover) that
    // also found it due changes no row here, and starts none. The row lock makes the second wait
    // and then see next_canary_at moved on, on PostgreSQL too.
    const qint64 now = nowMs();
    Result<QSqlQuery> claimed =
        runSql(m_db,
               u"UPDATE workers SET next_canary_at = ? WHERE id = ? AND next_canary_at <= ? AND "
               "NOT EXISTS (SELECT 1 FROM jobs j WHERE j.canary_worker_id = ? AND "
               "j.canary_verdict IS NULL)"_s,
               {now + m_deadlineMs, workerId, now, workerId});
    if (!claimed)
        return claimed.error();
    if (claimed->numRowsAffected() <= 0)
        return Ok{}; // started elsewhere meanwhile
    const Result<qint64> jobId = JobStore(m_db).addJob(job);
    if (!jobId)
        return jobId.error();
    if (Result<QSqlQuery> marked = runSql(m_db,
                                          u"UPDATE jobs SET canary_worker_id = ?, canary_answer = "
                                          "? WHERE id = ?"_s,
                                          {workerId, challenge.answerSha256, *jobId});
        !marked)
        return marked.error();
    if (Status committed = transaction.commit(); !committed)
        return committed;
    qCInfo(lcCanaries).noquote() << "canary job" << *jobId << "for worker" << workerId
                                 << workerName;
    m_scheduler.enqueue(*jobId);
    return Ok{};
}

} // namespace ddl::server
