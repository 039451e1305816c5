#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QSqlDatabase>
#include <QString>

namespace ddl::server {

class BlobStorage;
class Scheduler;

// A known-answer job: a DDL project whose main() hashes a random seed (the job's
// DDL_SEED) many times and writes the result; the server computes the same itself. The
// digest of that output file is the answer a worker must give. The project is the same for every
// canary (one package blob); only the seed differs.
struct CanaryChallenge
{
    QString seed;
    QString answerSha256; // SHA-256 of the output file an honest worker writes

    // Neutral names: nothing the worker sees says "canary" (docs/trust.md: what still does).
    static constexpr QLatin1String OutputFile{"result.txt"};
    static constexpr QLatin1String SeedVariable{"DDL_SEED"};
    static constexpr int Rounds = 20000; // SHA-256 rounds: a fraction of a second in Python
    // The project's main.py.
    static QByteArray mainPy();
    // A challenge on a fresh random seed.
    static CanaryChallenge make();
    static CanaryChallenge forSeed(const QString &seed);
    // What the output file holds: the seed hashed Rounds times (hex of each round hashed again).
    static QByteArray expectedOutput(const QString &seed);
};

// Canaries (docs/trust.md): a worker runs a canary job before any other work (it is unverified
// until it passes one), and again at a random time later (between 0.5 and 1.5 times the
// interval after each pass). A canary is a job of the system user, which no one can log in as,
// placed on that one worker ahead of every other job. Its verdict: the right output digest
// passes (the worker is verified); a wrong or missing digest, or an exit code other than 0,
// fails it and quarantines the worker, and so does a canary not judged within the deadline after
// it was created (kept running, or preempted again and again). A canary that ended without an
// exit code (lost worker, preparation failed) tells nothing, and a preempted one is requeued: either
// leaves the worker unverified (no user's work) until a canary passes. After an inconclusive one
// the next follows a minute later, doubling with each inconclusive one in a row up to an hour.
class CanaryService
{
public:
    CanaryService(const QSqlDatabase &db, BlobStorage &blobs, Scheduler &scheduler);

    void setIntervalMs(qint64 intervalMs) { m_intervalMs = intervalMs; }
    void setDeadlineMs(qint64 deadlineMs) { m_deadlineMs = deadlineMs; }
    // Judges the canaries that ended, then starts one for each online worker that is due. The
    // leading server calls it at its housekeeping rounds.
    void tick();

    // Starts a canary on the worker, unless one is pending or it is not due (another server, in
    // a leader handover, started it meanwhile): checked in the transaction that adds the job.
    Status start(qint64 workerId, const QString &workerName);

    static constexpr QLatin1String SystemUser{"ddl-system-canary"};
    static constexpr int Priority = 100; // before every user's job
    static constexpr qint64 RetryAfterInconclusiveMs = 60000;
    static constexpr const char *InconclusivePrefix = "inconclusive:";
    static constexpr qint64 MaxRetryAfterInconclusiveMs = 3600000;
    static constexpr qint64 DefaultDeadlineMs = 15 * 60000;

private:
    Status judgeEnded();
    // Canaries past the deadline fail; a preempted one unverifies its worker.
    Status judgeOverdue();
    Status unverifyPreempted();
    // 60 s doubling with each inconclusive canary in a row (the latest included), at most 1 h.
    Result<qint64> retryDelayMs(qint64 workerId);
    Status startDue();
    Result<qint64> systemUserId();
    // The canary project's package (a tar.zst of main.py), stored as a blob once.
    Result<QString> packageSha256();
    qint64 nextCanaryAt() const;

    QSqlDatabase m_db;
    BlobStorage &m_blobs;
    Scheduler &m_scheduler;
    qint64 m_intervalMs = 24LL * 3600 * 1000;
    qint64 m_deadlineMs = DefaultDeadlineMs;
    qint64 m_systemUserId = 0;
    QString m_packageSha256;
};

} // namespace ddl::server
