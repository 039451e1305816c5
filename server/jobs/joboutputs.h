#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

// One stored artifact of a job.
struct ArtifactEntry
{
    QString path;
    qint64 size = 0;
    QString sha256;
};

// What a job produced, looked up by job id (the caller has already checked the owner): its
// artifacts and the tasks whose logs may be read.
class JobOutputs
{
public:
    explicit JobOutputs(const QSqlDatabase &db);

    Result<QList<ArtifactEntry>> artifacts(qint64 jobId);
    Result<ArtifactEntry> artifact(qint64 jobId, const QString &path);
    // The state of a task of this job; not_found for a task of another job.
    Result<QString> taskState(qint64 jobId, qint64 taskId);

private:
    QSqlDatabase m_db;
};

} // namespace ddl::server
