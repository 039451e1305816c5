#include "jobspec.h"

#include <QJsonArray>

namespace ddl {

QJsonObject PortRequest::toJson() const
{
    return QJsonObject{{QStringLiteral("label"), label},
                       {QStringLiteral("beginAt"), beginAt},
                       {QStringLiteral("portNumber"), portNumber}};
}

int TaskRole::portCount() const
{
    int count = 1;
    for (const PortRequest &port : portList)
        count += port.portNumber;
    return count;
}

static QJsonValue optionalCount(const std::optional<int> &count)
{
    return count ? QJsonValue(*count) : QJsonValue(QJsonValue::Null);
}

QJsonObject TaskRole::toJson() const
{
    QJsonObject object{{QStringLiteral("name"), name},
                       {QStringLiteral("taskNumber"), taskNumber},
                       {QStringLiteral("cpuNumber"), cpuNumber},
                       {QStringLiteral("memoryMB"), memoryMB},
                       {QStringLiteral("gpuNumber"), gpuNumber},
                       {QStringLiteral("command"), command}};
    // Left out at their defaults, so that specs without them read as before.
    if (shmMB != 0)
        object.insert(QStringLiteral("shmMB"), shmMB);
    if (!portList.isEmpty()) {
        QJsonArray ports;
        for (const PortRequest &port : portList)
            ports.append(port.toJson());
        object.insert(QStringLiteral("portList"), ports);
    }
    if (minFailedTaskCount != 1)
        object.insert(QStringLiteral("minFailedTaskCount"), optionalCount(minFailedTaskCount));
    if (minSucceededTaskCount)
        object.insert(QStringLiteral("minSucceededTaskCount"), *minSucceededTaskCount);
    return object;
}

qint64 JobSpec::totalTasks() const
{
    qint64 total = 0;
    for (const TaskRole &role : taskRoles)
        total += role.taskNumber;
    return total;
}

qint64 JobSpec::totalGpus() const
{
    qint64 total = 0;
    for (const TaskRole &role : taskRoles)
        total += qint64(role.taskNumber) * role.gpuNumber;
    return total;
}

qint64 JobSpec::totalCpus() const
{
    qint64 total = 0;
    for (const TaskRole &role : taskRoles)
        total += qint64(role.taskNumber) * role.cpuNumber;
    return total;
}

qint64 JobSpec::totalMemoryMB() const
{
    qint64 total = 0;
    for (const TaskRole &role : taskRoles)
        total += qint64(role.taskNumber) * role.memoryMB;
    return total;
}

QJsonObject JobSpec::toJson() const
{
    QJsonObject object{{QStringLiteral("kind"), kindName(kind)},
                       {QStringLiteral("jobName"), jobName},
                       {QStringLiteral("image"), image}};
    if (!dataDir.isEmpty())
        object.insert(QStringLiteral("dataDir"), dataDir);
    if (!outputDir.isEmpty())
        object.insert(QStringLiteral("outputDir"), outputDir);
    if (!codeDir.isEmpty())
        object.insert(QStringLiteral("codeDir"), codeDir);
    QJsonArray roles;
    for (const TaskRole &role : taskRoles)
        roles.append(role.toJson());
    object.insert(QStringLiteral("taskRoles"), roles);
    object.insert(QStringLiteral("killAllOnCompletedTaskNumber"), killAllOnCompletedTaskNumber);
    object.insert(QStringLiteral("retryCount"), retryCount);
    const std::pair<const char *, const QString *> strings[] = {
        {"authFile", &authFile}, {"virtualCluster", &virtualCluster}, {"gpuType", &gpuType}};
    for (const auto &[key, value] : strings) {
        if (!value->isEmpty())
            object.insert(QLatin1String(key), *value);
    }
    if (minWorkerTrust != 0)
        object.insert(QStringLiteral("minWorkerTrust"), minWorkerTrust);
    if (!jobEnvs.isEmpty())
        object.insert(QStringLiteral("jobEnvs"), jobEnvs);
    if (!extras.isEmpty())
        object.insert(QStringLiteral("extras"), extras);
    return object;
}

QStringList JobSpec::noEffectNotes() const
{
    QStringList notes;
    const auto note = [&notes](const QString &field, const QString &why) {
        notes.append(field + QLatin1String(": accepted, but has no effect here: ") + why);
    };
    if (kind == Kind::OpenPai && !image.isEmpty() && !needsContainer(image))
        note(QStringLiteral("image"),
             QStringLiteral("only workers started with --container-runtime podman run the tasks "
                            "in a container of this image; others run them in their sandbox"));
    if (!authFile.isEmpty())
        note(QStringLiteral("authFile"), QStringLiteral("no container registry is contacted"));
    if (!virtualCluster.isEmpty())
        note(QStringLiteral("virtualCluster"),
             QStringLiteral("all workers form one pool; jobs wait in one queue"));
    if (!extras.isEmpty())
        note(QStringLiteral("extras"), QStringLiteral("kept with the job for you to read back"));
    for (qsizetype i = 0; i < taskRoles.size(); ++i) {
        const QList<PortRequest> &ports = taskRoles.at(i).portList;
        for (qsizetype j = 0; j < ports.size(); ++j) {
            if (ports.at(j).beginAt != 0)
                note(QStringLiteral("taskRoles[%1].portList[%2].beginAt").arg(i).arg(j),
                     QStringLiteral("ports are booked from the worker's free range; read them "
                                    "from PAI_CONTAINER_HOST_%1_PORT_LIST")
                         .arg(ports.at(j).label));
        }
    }
    return notes;
}

QString JobSpec::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Ddl:
        return QStringLiteral("ddl");
    case Kind::OpenPai:
        return QStringLiteral("openpai");
    }
    return {};
}

std::optional<JobSpec::Kind> JobSpec::kindFromName(const QString &name)
{
    if (name == QLatin1String("ddl"))
        return Kind::Ddl;
    if (name == QLatin1String("openpai"))
        return Kind::OpenPai;
    return std::nullopt;
}

} // namespace ddl
