#pragma once

#include "core/result.h"
#include "workers/workerref.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

class DatasetService;

// What workers tell of their tasks' checkpoints (POST /v1/workers/tasks/{id}/checkpoint,
// docs/checkpoints.md). A checkpoint is a dataset manifest the worker uploaded, with every file a
// blob the worker uploaded: it is recorded as its task's latest only once all of them are stored,
// so a half upload never becomes the one a next attempt starts from.
class CheckpointService
{
public:
    static constexpr qint64 DefaultMaxBytes = 10LL * 1024 * 1024 * 1024;
    // A checkpoint's manifest is read and checked on the server's event loop: far below what a
    // dataset's may hold (DatasetManifest::MaxFiles, MaxJsonBytes), so one worker cannot hold
    // the loop for long.
    static constexpr qsizetype MaxManifestFiles = 100'000;
    static constexpr qint64 MaxManifestJsonBytes = 64LL << 20;

    CheckpointService(const QSqlDatabase &db, DatasetService &datasets);

    // The most a checkpoint may hold (the server's checkpoint_max_bytes); leases carry it so
    // that a worker refuses a larger one before sending it. 0: no limit, as the worker reads it.
    void setMaxBytes(qint64 bytes) { m_maxBytes = bytes; }
    qint64 maxBytes() const { return m_maxBytes; }

    // request: {"manifest_sha256": "..."} for a task running on this worker. Answers what was
    // recorded: {"attempt", "files", "size"}.
    Result<QJsonObject> record(const WorkerRef &worker, qint64 taskId, const QJsonObject &request);

private:
    QSqlDatabase m_db;
    DatasetService &m_datasets;
    qint64 m_maxBytes = DefaultMaxBytes;
};

} // namespace ddl::server
