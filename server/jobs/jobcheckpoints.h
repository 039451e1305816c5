#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QSqlDatabase>
#include <optional>

namespace ddl::server {

// The latest complete checkpoint of one task of a job (its role and index): a dataset manifest
// whose files are all stored blobs, and which attempt uploaded it when.
struct CheckpointEntry
{
    qint64 jobId = 0;
    QString role;
    int roleIndex = 0;
    int attempt = 0;
    qint64 taskId = 0;
    QString manifestSha256;
    int files = 0;
    qint64 size = 0;
    qint64 createdAtMs = 0;
};

// The checkpoints table (docs/checkpoints.md), looked up by job id: the caller has checked that
// the job is the caller's (a user's) or that the task is leased to it (a worker's).
class JobCheckpoints
{
public:
    explicit JobCheckpoints(const QSqlDatabase &db);

    // Makes entry its task's latest checkpoint, unless one of a later attempt is stored already.
    Status record(const CheckpointEntry &entry);
    // The latest checkpoint of the job's task role[roleIndex]; nullopt: none yet.
    Result<std::optional<CheckpointEntry>> latest(qint64 jobId, const QString &role, int roleIndex);
    // What a user sees of the job's checkpoints (its detail JSON): one object per task.
    Result<QJsonArray> forJob(qint64 jobId);

private:
    QSqlDatabase m_db;
};

} // namespace ddl::server
