#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

namespace ddl {

// One task the server hands a worker (POST /v1/workers/lease, docs/api.md): the server builds
// it and sends toJson(), the worker reads it with fromJson().
struct TaskLease
{
    enum class Kind { Ddl, OpenPai };

    qint64 taskId = 0;
    QString jobUuid;
    QString jobName;
    Kind kind = Kind::Ddl;
    int attempt = 1;
    QString role;
    int roleIndex = 0;
    QString command; // kind OpenPai: run through /bin/sh -c in the code folder
    QString image;   // the job's image; empty: none (the task runs in the bubblewrap sandbox)
    int gpus = 0;
    int cpus = 0;
    qint64 memoryMb = 0;
    QList<int> gpuIndices; // the GPUs the server booked for the task; empty: the worker picks
    int port = 0;          // the port the server gave the task (in its peers' host lists)
    int shmMb = 0;         // the size of its /dev/shm (OpenPAI's shmMB); 0: the sandbox default
    QString packageSha256;
    QString datasetSha256;   // a tar.zst of the dataset folder; empty: none
    QString datasetManifest; // a DatasetManifest blob; empty: none (then datasetSha256 may be set)
    // For a ddl:// image: the DatasetManifest blob of its OCI layout (docs/images.md); empty: none.
    QString imageManifest;
    QMap<QString, QString> env;
    // Where the task's output files go among the job's artifacts ("worker-1/"); empty: at the
    // root (a job of one task).
    QString outputPrefix;
    // The latest checkpoint an earlier attempt of this task left (docs/checkpoints.md): a
    // DatasetManifest blob the worker lays out into DDL_CHECKPOINT_DIR before the task starts;
    // empty: none. checkpointAttempt: the attempt that uploaded it.
    QString checkpointManifest;
    int checkpointAttempt = 0;
    // The most the task's checkpoint may hold on the server; 0: no limit given.
    qint64 checkpointMaxBytes = 0;

    QJsonObject toJson() const;
    // Errors name the field; a lease whose task_id could be read keeps it in taskIdOut so that
    // the task can still be reported as failed.
    static Result<TaskLease> fromJson(const QJsonObject &object, qint64 *taskIdOut = nullptr);
    static QString kindName(Kind kind);
    // A relative folder path ending in '/', without empty, "." or ".." parts.
    static bool isSafeOutputPrefix(const QString &prefix);
};

} // namespace ddl
