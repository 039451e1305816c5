#include "jobspec.h"

#include <QJsonArray>

namespace ddl {

QJsonObject TaskRole::toJson() const
{
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("taskNumber"), taskNumber},
                       {QStringLiteral("cpuNumber"), cpuNumber},
                       {QStringLiteral("memoryMB"), memoryMB},
                       {QStringLiteral("gpuNumber"), gpuNumber},
                       {QStringLiteral("command"), command}};
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
    return object;
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
