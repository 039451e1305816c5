#pragma once

#include <QtGlobal>

namespace ddl::server {

// What a worker's trust is made of, as the store keeps it (docs/trust.md).
struct TrustInputs
{
    qint64 uptimeMs = 0;         // time it heartbeated, summed over its life
    int heartbeatLosses = 0;     // times it went silent and was marked LOST
    int tasksEnded = 0;          // tasks that ended on it, by any outcome
    int tasksFailedByWorker = 0; // of those, failed without an exit code (the worker's fault)
    int canariesPassed = 0;
    int canariesFailed = 0;
    bool quarantined = false;
};

// The trust score, 0 to 100, of one worker: three parts that add up.
//   canaries 40: 10 per canary passed (at most 4), less 20 per canary failed;
//   uptime   30: 30 x (hours online, at most 24) / 24, less 10 per heartbeat loss;
//   tasks    30: 30 x (1 - F / (N + 2)) for F of its N ended tasks failed for worker reasons.
// Each part is at least 0; a quarantined worker has 0. A new worker has 30 (its tasks part),
// one that passed its first canary 40, and one with 4 canaries and a day online without
// losses or failures 100.
struct TrustScore
{
    static constexpr int CanaryPoints = 10;
    static constexpr int MaxCanaryPart = 40;
    static constexpr int CanaryFailurePenalty = 20;
    static constexpr int MaxUptimePart = 30;
    static constexpr qint64 FullUptimeMs = 24LL * 3600 * 1000;
    static constexpr int LossPenalty = 10;
    static constexpr int MaxTaskPart = 30;

    static int canaryPart(const TrustInputs &in)
    {
        const int earned = qMin(in.canariesPassed * CanaryPoints, MaxCanaryPart);
        return qMax(0, earned - in.canariesFailed * CanaryFailurePenalty);
    }
    static int uptimePart(const TrustInputs &in)
    {
        const qint64 uptime = qBound<qint64>(0, in.uptimeMs, FullUptimeMs);
        const int earned = int(MaxUptimePart * uptime / FullUptimeMs);
        return qMax(0, earned - in.heartbeatLosses * LossPenalty);
    }
    static int taskPart(const TrustInputs &in)
    {
        const int ended = qMax(0, in.tasksEnded);
        const int failed = qBound(0, in.tasksFailedByWorker, ended);
        return MaxTaskPart - (MaxTaskPart * failed + (ended + 2) / 2) / (ended + 2);
    }
    static int of(const TrustInputs &in)
    {
        if (in.quarantined)
            return 0;
        return qBound(0, canaryPart(in) + uptimePart(in) + taskPart(in), 100);
    }
};

} // namespace ddl::server
