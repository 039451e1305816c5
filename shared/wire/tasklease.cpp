#include "tasklease.h"

#include "core/sha256.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace ddl {

static Error leaseError(const QString &field, const QString &message)
{
    return Error::make(
        ErrorCode::InvalidLease, u"lease field '%1' %2"_s.arg(field, message), field);
}

Result<TaskLease> TaskLease::fromJson(const QJsonObject &object, qint64 *taskIdOut)
{
    TaskLease lease;
    const QJsonValue id = object.value(u"task_id"_s);
    bool idOk = false;
    if (id.isDouble()) {
        lease.taskId = id.toInteger(-1);
        idOk = lease.taskId >= 0;
    } else if (id.isString()) {
        lease.taskId = id.toString().toLongLong(&idOk);
    }
    if (!idOk)
        return leaseError(u"task_id"_s, u"must be a task number"_s);
    if (taskIdOut)
        *taskIdOut = lease.taskId;

    lease.jobUuid = object.value(u"job_uuid"_s).toString();
    lease.jobName = object.value(u"job_name"_s).toString();
    const QString kind = object.value(u"kind"_s).toString(u"ddl"_s);
    if (kind == u"ddl")
        lease.kind = Kind::Ddl;
    else if (kind == u"openpai")
        lease.kind = Kind::OpenPai;
    else
        return leaseError(u"kind"_s, u"must be \"ddl\" or \"openpai\", got \"%1\""_s.arg(kind));
    lease.attempt = object.value(u"attempt"_s).toInt(1);
    lease.role = object.value(u"role"_s).toString();
    lease.roleIndex = object.value(u"role_index"_s).toInt(0);
    lease.command = object.value(u"command"_s).toString();
    lease.image = object.value(u"image"_s).toString();
    lease.gpus = object.value(u"gpus"_s).toInt(0);
    for (const QJsonValue &index : object.value(u"gpu_indices"_s).toArray())
        lease.gpuIndices.append(index.toInt(-1));
    lease.port = object.value(u"port"_s).toInt(0);
    lease.shmMb = object.value(u"shm_mb"_s).toInt(0);
    lease.cpus = object.value(u"cpus"_s).toInt(0);
    lease.memoryMb = object.value(u"memory_mb"_s).toInteger(0);
    if (lease.gpus < 0 || lease.cpus < 0 || lease.memoryMb < 0 || lease.shmMb < 0)
        return leaseError(u"gpus"_s, u"and cpus, memory_mb, shm_mb must be >= 0"_s);

    // An OpenPAI job may come without code: its command needs none.
    lease.packageSha256 = object.value(u"package_sha256"_s).toString();
    if (!lease.packageSha256.isEmpty() && !isSha256Hex(lease.packageSha256))
        return leaseError(u"package_sha256"_s, u"must be a lowercase SHA-256 hex digest"_s);
    if (lease.packageSha256.isEmpty() && lease.kind == Kind::Ddl)
        return leaseError(u"package_sha256"_s, u"is required for a DDL job"_s);
    const QJsonValue dataset = object.value(u"dataset_sha256"_s);
    if (dataset.isString() && !dataset.toString().isEmpty()) {
        lease.datasetSha256 = dataset.toString();
        if (!isSha256Hex(lease.datasetSha256))
            return leaseError(u"dataset_sha256"_s, u"must be a SHA-256 hex digest or null"_s);
    }
    for (const auto &[field, manifest] :
         {std::pair{u"dataset_manifest"_s, &lease.datasetManifest},
          std::pair{u"image_manifest"_s, &lease.imageManifest},
          std::pair{u"checkpoint_manifest"_s, &lease.checkpointManifest}}) {
        const QJsonValue value = object.value(field);
        if (value.isString() && !value.toString().isEmpty()) {
            *manifest = value.toString();
            if (!isSha256Hex(*manifest))
                return leaseError(field, u"must be a SHA-256 hex digest or null"_s);
        } else if (!value.isNull() && !value.isUndefined()) {
            return leaseError(field, u"must be a SHA-256 hex digest or null"_s);
        }
    }
    lease.checkpointAttempt = object.value(u"checkpoint_attempt"_s).toInt(0);
    lease.checkpointMaxBytes = object.value(u"checkpoint_max_bytes"_s).toInteger(0);
    if (lease.checkpointMaxBytes < 0)
        return leaseError(u"checkpoint_max_bytes"_s, u"must be >= 0"_s);
    // Tasks of a job with several share its artifacts, each in a folder of its own.
    lease.outputPrefix = object.value(u"output_prefix"_s).toString();
    if (!lease.outputPrefix.isEmpty() && !isSafeOutputPrefix(lease.outputPrefix))
        return leaseError(u"output_prefix"_s, u"must be a relative folder path ending in /"_s);
    if (lease.kind == Kind::OpenPai && lease.command.trimmed().isEmpty())
        return leaseError(u"command"_s, u"must not be empty for an openpai task"_s);

    const QJsonObject env = object.value(u"env"_s).toObject();
    for (auto it = env.begin(); it != env.end(); ++it) {
        const QJsonValue value = it.value();
        lease.env.insert(it.key(),
                         value.isString() ? value.toString() : value.toVariant().toString());
    }
    return lease;
}

// A text that may be absent is null on the wire.
static QJsonValue orNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

QJsonObject TaskLease::toJson() const
{
    QJsonArray indices;
    for (const int index : gpuIndices)
        indices.append(index);
    QJsonObject environment;
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        environment.insert(it.key(), it.value());
    return QJsonObject{
        {u"task_id"_s, taskId},
        {u"job_uuid"_s, jobUuid},
        {u"job_name"_s, jobName},
        {u"kind"_s, kindName(kind)},
        {u"attempt"_s, attempt},
        {u"role"_s, role},
        {u"role_index"_s, roleIndex},
        {u"command"_s, command},
        {u"image"_s, image},
        {u"gpus"_s, gpus},
        {u"gpu_indices"_s, indices},
        {u"cpus"_s, cpus},
        {u"memory_mb"_s, memoryMb},
        {u"port"_s, port},
        {u"shm_mb"_s, shmMb},
        {u"package_sha256"_s, orNull(packageSha256)},
        {u"dataset_sha256"_s, orNull(datasetSha256)},
        {u"dataset_manifest"_s, orNull(datasetManifest)},
        {u"image_manifest"_s, orNull(imageManifest)},
        {u"env"_s, environment},
        {u"output_prefix"_s, outputPrefix},
        {u"checkpoint_manifest"_s, orNull(checkpointManifest)},
        {u"checkpoint_attempt"_s, checkpointAttempt},
        {u"checkpoint_max_bytes"_s, checkpointMaxBytes},
    };
}

bool TaskLease::isSafeOutputPrefix(const QString &prefix)
{
    if (prefix.size() > 256 || !prefix.endsWith(u'/') || prefix.startsWith(u'/') ||
        prefix.contains(u'\\'))
        return false;
    for (const QStringView part : QStringView(prefix).chopped(1).split(u'/')) {
        if (part.isEmpty() || part == u"." || part == u"..")
            return false;
    }
    return true;
}

QString TaskLease::kindName(Kind kind)
{
    return kind == Kind::Ddl ? u"ddl"_s : u"openpai"_s;
}

} // namespace ddl
