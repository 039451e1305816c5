#pragma once

#include "core/result.h"
#include "wire/utilisationsample.h"
#include "workerref.h"

#include <QJsonObject>
#include <QSqlDatabase>
#include <optional>

namespace ddl::server {

// How many utilisation samples the store keeps (ServerConfig).
struct UtilisationLimits
{
    int samplesPerTask = 1000;    // about 80 minutes at 5 s, then ever coarser
    int samplesPerWorker = 20000; // a day at 5 s
    qint64 workerRetentionMs = 24LL * 3600 * 1000;
    // A task's samples are kept this long after it ended (its job's page shows them), then go.
    qint64 endedTaskRetentionMs = 30LL * 24 * 3600 * 1000;
};

// Utilisation samples of tasks and workers (docs/api.md, "Utilisation"): what workers send, kept
// bounded, and the series users read. A series over its limit is thinned, not cut: every second
// sample of its older half goes, so a long run keeps its whole course at a coarser step.
class UtilisationService
{
public:
    static constexpr int MaxSamplesPerBatch = ddl::MaxSamplesPerBatch;
    static constexpr int MaxTasksPerBatch = ddl::MaxTasksPerBatch;
    // Samples more than this far ahead of the server's clock are left out (a wrong clock).
    static constexpr qint64 MaxClockAheadMs = 5 * 60 * 1000;

    explicit UtilisationService(const QSqlDatabase &db, UtilisationLimits limits = {});

    // POST /v1/workers/samples {"worker": [sample], "tasks": [{"task_id", "samples": [sample]}]}:
    // stores the machine's samples and those of tasks leased to this worker (others are left out
    // and named in "ignored_tasks"). A sample at or before the newest stored one of its series is
    // a resend and skipped. Answers {"stored": N, "ignored_tasks": [...]}.
    Result<QJsonObject> record(const WorkerRef &worker, const QJsonObject &request);
    // GET /v1/jobs/<uuid>/utilisation: the series of each task of one attempt of the job (the
    // current one unless given). The caller has checked that the job is the user's.
    Result<QJsonObject> forJob(qint64 jobId, std::optional<int> attempt);
    // GET /v1/workers/<id>/utilisation: the worker's machine; not_found for an unknown id.
    Result<QJsonObject> forWorker(const QString &workerId);
    // Drops machine samples older than the retention, and the samples of tasks that ended
    // longer ago than theirs (housekeeping), so the store does not grow with every task run.
    void purgeOldSamples();

private:
    struct Series
    {
        const char *table;
        const char *keyColumn;
        qint64 key;
        int limit;
    };
    Result<int> store(const Series &series, const QList<UtilisationSample> &samples);
    Status thin(const Series &series);
    Result<QList<UtilisationSample>> read(const Series &series);

    QSqlDatabase m_db;
    UtilisationLimits m_limits;
};

} // namespace ddl::server
