#include "joboutputs.h"

#include "store/sql.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

JobOutputs::JobOutputs(const QSqlDatabase &db)
    : m_db(db)
{}

Result<QList<ArtifactEntry>> JobOutputs::artifacts(qint64 jobId)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT path, size, sha256 FROM artifacts WHERE "
                                                    "job_id = ? ORDER BY path"),
                                     {jobId});
    if (!query)
        return query.error();
    QList<ArtifactEntry> entries;
    while (query->next())
        entries.append({query->value(u"path"_s).toString(), query->value(u"size"_s).toLongLong(),
                        query->value(u"sha256"_s).toString()});
    return entries;
}

Result<ArtifactEntry> JobOutputs::artifact(qint64 jobId, const QString &path)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT size, sha256 FROM artifacts WHERE "
                                                    "job_id = ? AND path = ?"),
                                     {jobId, path});
    if (!query)
        return query.error();
    if (!query->next()) {
        return Error::make(ErrorCode::NotFound,
                           QStringLiteral("the job has no artifact %1; list them with ddlcli "
                                          "download or GET .../artifacts")
                               .arg(path.left(200)),
                           QStringLiteral("path"));
    }
    return ArtifactEntry{path, query->value(u"size"_s).toLongLong(),
                         query->value(u"sha256"_s).toString()};
}

Result<QString> JobOutputs::taskState(qint64 jobId, qint64 taskId)
{
    Result<QSqlQuery> query = runSql(m_db,
                                     QStringLiteral("SELECT state FROM tasks WHERE id = ? AND "
                                                    "job_id = ?"),
                                     {taskId, jobId});
    if (!query)
        return query.error();
    if (!query->next()) {
        return Error::make(
            ErrorCode::NotFound,
            QStringLiteral("the job has no task %1; ddlcli progress lists its tasks").arg(taskId),
            QStringLiteral("task"));
    }
    return query->value(u"state"_s).toString();
}

} // namespace ddl::server
