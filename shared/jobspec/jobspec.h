#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl {

// One entry of an OpenPAI task role's portList: portNumber ports, named label, that each task
// of the role gets booked on its worker (PAI_CONTAINER_HOST_<label>_PORT_LIST).
struct PortRequest
{
    QString label;
    int beginAt = 0; // OpenPAI's wish for a fixed first port; 0 is any (the only kind booked here)
    int portNumber = 1;

    QJsonObject toJson() const;

    friend bool operator==(const PortRequest &, const PortRequest &) = default;
};

// One task role of a job: taskNumber identical tasks, each with these resources and command.
struct TaskRole
{
    QString name;
    int taskNumber = 1;
    int cpuNumber = 1;
    int memoryMB = 2048;
    int gpuNumber = 0;
    QString command; // empty for DDL jobs: the worker runs its Python runner
    int shmMB = 0;   // size of the task's /dev/shm; 0 leaves the sandbox's default
    QList<PortRequest> portList = {};
    // OpenPAI's completion policy: the job fails once minFailedTaskCount tasks of this role
    // failed (nullopt, OpenPAI's null: never for this role), and succeeds once
    // minSucceededTaskCount of them succeeded (nullopt: when all tasks of the job ended).
    std::optional<int> minFailedTaskCount = 1;
    std::optional<int> minSucceededTaskCount = std::nullopt;

    // Ports each task of the role books: its own one plus those of portList.
    int portCount() const;

    // The wire form: {"name", "taskNumber", "cpuNumber", "memoryMB", "gpuNumber", "command"},
    // plus shmMB, portList, minFailedTaskCount and minSucceededTaskCount when not the defaults.
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
    QJsonObject jobEnvs; // name -> string, number or boolean: set in every task's environment
    // Only workers whose --gpu-type matches (in any case) run the job's tasks.
    QString gpuType;
    // DDL's own: only workers whose trust score (0 to 100, docs/trust.md) is at least this run
    // the job's tasks; 0 (the default) takes any worker that is not quarantined.
    int minWorkerTrust = 0;
    static constexpr int MaxWorkerTrust = 100;
    // OpenPAI fields kept with the job that have no effect here (see noEffectNotes()).
    QString authFile;
    QString virtualCluster;
    QJsonObject extras;
    QString datasetLocation; // client-side path from task.yaml; never sent on the wire

    // Sums over all task roles of taskNumber (times the per-task resource).
    qint64 totalTasks() const;
    qint64 totalGpus() const;
    qint64 totalCpus() const;
    qint64 totalMemoryMB() const;

    // The wire form: the OpenPAI field names plus "kind"; datasetLocation is left out, and so
    // are the optional fields when empty.
    QJsonObject toJson() const;

    // One line per field this spec sets that is kept but changes nothing here (authFile,
    // virtualCluster, extras, a portList beginAt, the image): the job's events say so.
    QStringList noEffectNotes() const;

    // The scheme of an image pushed to DDL (`ddlcli image push NAME`): "ddl://NAME".
    static constexpr QLatin1String ImageScheme{"ddl://"};
    // Whether only a worker that runs containers can run a job with this image: a ddl:// image,
    // whose files no sandbox has. A registry image (ubuntu, python:3.11, as every OpenPAI job
    // names one) runs in the sandbox of a worker without podman, its log saying so.
    static bool needsContainer(const QString &image) { return image.startsWith(ImageScheme); }

    // "ddl" or "openpai".
    static QString kindName(Kind kind);
    static std::optional<Kind> kindFromName(const QString &name);

    friend bool operator==(const JobSpec &, const JobSpec &) = default;
};

} // namespace ddl
