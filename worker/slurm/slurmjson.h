#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace ddl::worker {

// What a partition offers, summed over its usable nodes (sinfo --json): the worker announces it
// as its capacity.
struct SlurmCapacity
{
    int nodes = 0;
    int cpus = 0;
    qint64 memoryMb = 0;
    int gpus = 0; // of GRES "gpu" ("gpu:2", "gpu:a100:4(S:0-1)")
    int largestNodeCpus = 0;
};

// One job as squeue reports it.
struct SlurmJobStatus
{
    qint64 jobId = 0;
    QString state;  // PENDING, RUNNING, COMPLETED, CANCELLED, ...
    QString reason; // Slurm's state reason: Resources, Priority, QOSMaxJobsPerUserLimit, None
    QString nodes;
    std::optional<int> exitCode;

    bool isPending() const { return state == u"PENDING"; }
    // The job holds nothing any more.
    bool isFinal() const;
};

// Reads `sinfo --json` (Slurm 22.05's openapi/v0.0.38 layout; the array forms of later
// releases are read too): the nodes of `partition` that are neither down nor drained. An answer
// without "nodes" is an error that names the plugin version it came from.
Result<SlurmCapacity> parseSinfoJson(const QByteArray &json, const QString &partition);

// Reads `squeue --json`: every job it lists.
Result<QList<SlurmJobStatus>> parseSqueueJson(const QByteArray &json);

// The job id of `sbatch --parsable` ("12" or "12;cluster").
Result<qint64> parseSbatchParsable(const QByteArray &output);

// What Slurm's reason code means, for a user who does not know Slurm ("Resources": "waiting for
// resources to become free"); the code itself stays in front.
QString describeSlurmReason(const QString &reason);

} // namespace ddl::worker
