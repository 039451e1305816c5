#pragma once

#include "core/result.h"
#include "jobs/joblistquery.h"

#include <QJsonObject>
#include <QSqlDatabase>

namespace ddl::server {

class Scheduler;
class DatasetService;
class ImageService;
class UploadService;

// A job found for its owner: the ids the other services need.
struct JobRef
{
    qint64 id = 0;
    qint64 userId = 0;
    QString uuid;
    QString state;
};

// Jobs as their owners see them: submit, list, read, cancel. Every lookup is scoped to the
// owner; another user's job answers not_found, exactly like a job that does not exist.
class JobService
{
public:
    JobService(const QSqlDatabase &db, UploadService &uploads, DatasetService &datasets,
               ImageService &images,
               Scheduler &scheduler);

    // Refuses a job that no registered worker could ever hold (unschedulable; unless the request
    // says "allow_unschedulable": true) and a second live job of the same name (name_in_use).
    Result<QJsonObject> submit(qint64 userId, const QJsonObject &request);
    Result<QJsonObject> list(qint64 userId, const JobListQuery &query);
    // Every lookup takes the job's uuid or its name (the live job of that name, else the newest
    // that had it).
    Result<QJsonObject> get(qint64 userId, const QString &uuidOrName);
    Result<QJsonObject> cancel(qint64 userId, const QString &uuidOrName);
    Result<JobRef> find(qint64 userId, const QString &uuidOrName);

    // The wire form of one job; with its tasks when withTasks.
    Result<QJsonObject> render(qint64 jobId, bool withTasks);

private:
    QSqlDatabase m_db;
    UploadService &m_uploads;
    DatasetService &m_datasets;
    ImageService &m_images;
    Scheduler &m_scheduler;
};

} // namespace ddl::server
