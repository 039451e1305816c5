#include "jobcheckpoints.h"

#include "store/sql.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ddl::server {

JobCheckpoints::JobCheckpoints(const QSqlDatabase &db)
    : m_db(db)
{
}

Status JobCheckpoints::record(const CheckpointEntry &entry)
{
    // A late upload of an earlier attempt never replaces what a later attempt stored.
    Result<QSqlQuery> upsert = runSql(
        m_db,
        u"INSERT INTO checkpoints (job_id, role, role_index, attempt, task_id, manifest_sha256, "
        "files, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, role, "
        "role_index) DO UPDATE SET attempt = excluded.attempt, task_id = excluded.task_id, "
        "manifest_sha256 = excluded.manifest_sha256, files = excluded.files, size = "
        "excluded.size, created_at = excluded.created_at WHERE checkpoints.attempt <= "
        "excluded.attempt"_s,
        {entry.jobId,
         entry.role,
         entry.roleIndex,
         entry.attempt,
         entry.taskId,
         entry.manifestSha256,
         entry.files,
         entry.size,
         entry.createdAtMs});
    if (!upsert)
        return upsert.error();
    return Ok{};
}

static CheckpointEntry entryOf(const QSqlQuery &row, qint64 jobId)
{
    CheckpointEntry entry;
    entry.jobId = jobId;
    entry.role = row.value(u"role"_s).toString();
    entry.roleIndex = row.value(u"role_index"_s).toInt();
    entry.attempt = row.value(u"attempt"_s).toInt();
    entry.taskId = row.value(u"task_id"_s).toLongLong();
    entry.manifestSha256 = row.value(u"manifest_sha256"_s).toString();
    entry.files = row.value(u"files"_s).toInt();
    entry.size = row.value(u"size"_s).toLongLong();
    entry.createdAtMs = row.value(u"created_at"_s).toLongLong();
    return entry;
}

Result<std::optional<CheckpointEntry>>
JobCheckpoints::latest(qint64 jobId, const QString &role, int roleIndex)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     u"SELECT role, role_index, attempt, task_id, "
                                     "manifest_sha256, files, size, created_at FROM checkpoints "
                                     "WHERE job_id = ? AND role = ? AND role_index = ?"_s,
                                     {jobId, role, roleIndex});
    if (!query)
        return query.error();
    if (!query->next())
        return std::optional<CheckpointEntry>();
    return std::optional<CheckpointEntry>(entryOf(*query, jobId));
}

Result<QJsonArray> JobCheckpoints::forJob(qint64 jobId)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     u"SELECT role, role_index, attempt, task_id, "
                                     "manifest_sha256, files, size, created_at FROM checkpoints "
                                     "WHERE job_id = ? ORDER BY role, role_index"_s,
                                     {jobId});
    if (!query)
        return query.error();
    QJsonArray checkpoints;
    while (query->next()) {
        const CheckpointEntry entry = entryOf(*query, jobId);
        checkpoints.append(QJsonObject{
            {u"role"_s, entry.role},
            {u"role_index"_s, entry.roleIndex},
            {u"attempt"_s, entry.attempt},
            {u"task_id"_s, entry.taskId},
            {u"created_at"_s, isoTime(entry.createdAtMs)},
            {u"files"_s, entry.files},
            {u"size"_s, entry.size},
            {u"manifest_sha256"_s, entry.manifestSha256},
        });
    }
    return checkpoints;
}

} // namespace ddl::server
