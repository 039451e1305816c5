#include "checkpointservice.h"

#include "blobs/uploadservice.h"
#include "core/sha256.h"
#include "datasets/datasetservice.h"
#include "jobs/jobcheckpoints.h"
#include "store/sql.h"
#include "wire/jobstate.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

CheckpointService::CheckpointService(const QSqlDatabase &db, DatasetService &datasets)
    : m_db(db)
    , m_datasets(datasets)
{
}

Result<QJsonObject>
CheckpointService::record(const WorkerRef &worker, qint64 taskId, const QJsonObject &request)
{
    Result<QSqlQuery> task =
        runSql(m_db,
               u"SELECT t.job_id, t.role, t.role_index, t.attempt, w.quarantined, "
               "w.quarantine_reason FROM tasks t JOIN workers w ON w.id = t.worker_id WHERE "
               "t.id = ? AND t.worker_id = ? AND t.state = ?"_s,
               {taskId, worker.id, stateName(JobState::Running)});
    if (!task)
        return task.error();
    if (!task->next()) {
        return Error::make(ErrorCode::Conflict,
                           u"task %1 is not leased to this worker any more; its checkpoint is "
                           "not kept"_s.arg(taskId),
                           u"task_id"_s);
    }
    // A quarantined worker's state is not to be trusted: a next attempt, perhaps on a trusted
    // worker, would go on from it.
    if (task->value(u"quarantined"_s).toBool()) {
        return Error::make(ErrorCode::Forbidden,
                           u"this worker is quarantined (%1); the server keeps no checkpoint of "
                           "it until the admin releases it (ddl-server workers release %2)"_s
                               .arg(task->value(u"quarantine_reason"_s).toString(),
                                    QString::number(worker.id)),
                           u"worker"_s);
    }
    CheckpointEntry entry;
    entry.jobId = task->value(u"job_id"_s).toLongLong();
    entry.role = task->value(u"role"_s).toString();
    entry.roleIndex = task->value(u"role_index"_s).toInt();
    entry.attempt = task->value(u"attempt"_s).toInt();
    entry.taskId = taskId;
    task->finish();

    entry.manifestSha256 = request.value(u"manifest_sha256"_s).toString();
    if (!isSha256Hex(entry.manifestSha256)) {
        return Error::make(ErrorCode::BadRequest,
                           u"manifest_sha256 must be the SHA-256 hex digest of an uploaded "
                           "dataset manifest"_s,
                           u"manifest_sha256"_s);
    }
    // The manifest and every file it lists must be blobs this worker stored; its size is what
    // the blobs hold, not what the manifest declares, and an over-limit one is refused before it
    // is remembered.
    const QString owner = UploadService::workerOwner(worker.id);
    Result<DatasetManifest> manifest = m_datasets.loadManifest(
        owner, entry.manifestSha256, MaxManifestFiles, MaxManifestJsonBytes);
    if (!manifest) {
        Error error = manifest.error();
        if (error.is(ErrorCode::PayloadTooLarge))
            error.message += u" (a checkpoint's manifest); keep fewer, larger files in "
                             "DDL_CHECKPOINT_DIR"_s;
        return error;
    }
    Result<qint64> size = m_datasets.storedSize(*manifest);
    if (!size)
        return size.error();
    entry.files = int(manifest->files().size());
    entry.size = *size;
    if (m_maxBytes > 0 && entry.size > m_maxBytes) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           u"the checkpoint holds %1 bytes, more than the %2 bytes this server "
                           "keeps of one (checkpoint_max_bytes); keep less in "
                           "DDL_CHECKPOINT_DIR"_s.arg(entry.size)
                               .arg(m_maxBytes),
                           u"manifest_sha256"_s);
    }
    if (Status registered = m_datasets.registerManifest(entry.manifestSha256, *manifest);
        !registered)
        return registered.error();
    entry.createdAtMs = nowMs();
    if (Status recorded = JobCheckpoints(m_db).record(entry); !recorded)
        return recorded.error();
    return QJsonObject{
        {u"attempt"_s, entry.attempt}, {u"files"_s, entry.files}, {u"size"_s, entry.size}};
}

} // namespace ddl::server
