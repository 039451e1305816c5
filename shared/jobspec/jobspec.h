#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace ddl {

// One task role of a job: taskNumber identical tasks, each with these resources and command.
struct TaskRole
{
    QString name;
    int taskNumber = 1;
    int cpuNumber = 1;
    int memoryMB = 2048;
    int gpuNumber = 0;
    QString command; // empty for DDL jobs: the worker runs its Python runner

    // The wire form: {"name", "taskNumber", "cpuNumber", "memoryMB", "gpuNumber", "command"}.
    QJsonObject toJson() const;

    friend bool operator==(const TaskRole &, const TaskRole &) = default;
};

// The one normalised job spec every client and the server share, whether it was read from a DDL
// task.yaml, an OpenPAI job JSON or the wire. JobSpecParser reads it, JobSpecValidator checks it.
struct JobSpec
{
    enum class Kind { Ddl, OpenPai };

    Kind kind = Kind::OpenPai;
    QString jobName;
    QString image;
    QString dataDir;
    QString outputDir;
    QString codeDir;
    QList<TaskRole> taskRoles;
    int killAllOnCompletedTaskNumber = 0;
    int retryCount = 0;
    QString datasetLocation; // client-side path from task.yaml; never sent on the wire

    // Sums over all task roles of taskNumber (times the per-task resource).
    qint64 totalTasks() const;
    qint64 totalGpus() const;
    qint64 totalCpus() const;
    qint64 totalMemoryMB() const;

    // The wire form: the OpenPAI field names plus "kind"; datasetLocation is left out, and so
    // are dataDir, outputDir and codeDir when empty.
    QJsonObject toJson() const;

    // "ddl" or "openpai".
    static QString kindName(Kind kind);
    static std::optional<Kind> kindFromName(const QString &name);

    friend bool operator==(const JobSpec &, const JobSpec &) = default;
};

} // namespace ddl
