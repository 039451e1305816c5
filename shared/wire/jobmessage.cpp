#include "jobmessage.h"

using namespace Qt::StringLiterals;

namespace ddl {

namespace Key {
constexpr auto Id = "id"_L1;
constexpr auto Index = "index"_L1;
constexpr auto Role = "role"_L1;
constexpr auto RoleIndex = "role_index"_L1;
constexpr auto State = "state"_L1;
constexpr auto ExitCode = "exit_code"_L1;
constexpr auto Worker = "worker"_L1;
constexpr auto Address = "address"_L1;
constexpr auto WorkerTrust = "worker_trust"_L1;
constexpr auto Port = "port"_L1;
constexpr auto Ports = "ports"_L1;
constexpr auto Gpus = "gpus"_L1;
constexpr auto Attempt = "attempt"_L1;
constexpr auto StartedAt = "started_at"_L1;
constexpr auto FinishedAt = "finished_at"_L1;
constexpr auto Message = "message"_L1;
constexpr auto Uuid = "uuid"_L1;
constexpr auto Name = "name"_L1;
constexpr auto Kind = "kind"_L1;
constexpr auto Spec = "spec"_L1;
constexpr auto Commit = "commit"_L1;
constexpr auto RetryCount = "retry_count"_L1;
constexpr auto Preemptions = "preemptions"_L1;
constexpr auto Reason = "reason"_L1;
constexpr auto CreatedAt = "created_at"_L1;
constexpr auto PackageSha256 = "package_sha256"_L1;
constexpr auto DatasetSha256 = "dataset_sha256"_L1;
constexpr auto DatasetManifest = "dataset_manifest"_L1;
constexpr auto Priority = "priority"_L1;
constexpr auto Tasks = "tasks"_L1;
constexpr auto Events = "events"_L1;
} // namespace Key

QJsonValue wireTime(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(time.toUTC().toString(Qt::ISODateWithMs)) : QJsonValue();
}

QDateTime parseWireTime(const QJsonValue &value)
{
    if (!value.isString())
        return {};
    const QDateTime time = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

static QJsonValue orNull(const QString &text)
{
    return text.isNull() ? QJsonValue() : QJsonValue(text);
}

static QJsonArray numbers(const QList<int> &list)
{
    QJsonArray array;
    for (const int number : list)
        array.append(number);
    return array;
}

static QList<int> numbersOf(const QJsonValue &value)
{
    QList<int> list;
    for (const QJsonValue &number : value.toArray())
        list.append(number.toInt());
    return list;
}

QJsonObject TaskMessage::toJson() const
{
    return QJsonObject{
        {Key::Id, id},
        {Key::Index, index},
        {Key::Role, role},
        {Key::RoleIndex, roleIndex},
        {Key::State, stateName(state)},
        {Key::ExitCode, exitCode ? QJsonValue(*exitCode) : QJsonValue()},
        {Key::Worker, orNull(worker)},
        {Key::Address, orNull(address)},
        {Key::WorkerTrust, workerTrust ? QJsonValue(*workerTrust) : QJsonValue()},
        {Key::Port, port},
        {Key::Ports, [this] {
             QJsonObject labelled;
             for (auto it = ports.cbegin(); it != ports.cend(); ++it)
                 labelled.insert(it.key(), numbers(it.value()));
             return labelled;
         }()},
        {Key::Gpus, numbers(gpus)},
        {Key::Attempt, attempt},
        {Key::StartedAt, wireTime(startedAt)},
        {Key::FinishedAt, wireTime(finishedAt)},
        {Key::Message, message},
    };
}

Result<TaskMessage> TaskMessage::fromJson(const QJsonObject &object)
{
    TaskMessage task;
    const Result<JobState> state = parseJobState(object.value(Key::State).toString());
    if (!state)
        return state.error();
    task.state = *state;
    task.id = object.value(Key::Id).toInteger();
    task.index = object.value(Key::Index).toInt();
    task.role = object.value(Key::Role).toString();
    task.roleIndex = object.value(Key::RoleIndex).toInt();
    if (object.value(Key::ExitCode).isDouble())
        task.exitCode = object.value(Key::ExitCode).toInt();
    task.worker = object.value(Key::Worker).toString();
    task.address = object.value(Key::Address).toString();
    if (object.value(Key::WorkerTrust).isDouble())
        task.workerTrust = object.value(Key::WorkerTrust).toInt();
    task.port = object.value(Key::Port).toInt();
    const QJsonObject labelled = object.value(Key::Ports).toObject();
    for (auto it = labelled.constBegin(); it != labelled.constEnd(); ++it)
        task.ports.insert(it.key(), numbersOf(it.value()));
    task.gpus = numbersOf(object.value(Key::Gpus));
    task.attempt = object.value(Key::Attempt).toInt(1);
    task.startedAt = parseWireTime(object.value(Key::StartedAt));
    task.finishedAt = parseWireTime(object.value(Key::FinishedAt));
    task.message = object.value(Key::Message).toString();
    return task;
}

QJsonObject JobMessage::toJson() const
{
    QJsonObject job{
        {Key::Uuid, uuid},
        {Key::Name, name},
        {Key::Kind, kind},
        {Key::State, stateName(state)},
        {Key::Spec, spec},
        {Key::Commit, commit},
        {Key::Attempt, attempt},
        {Key::RetryCount, retryCount},
        {Key::Preemptions, preemptions},
        {Key::Reason, reason},
        {Key::CreatedAt, wireTime(createdAt)},
        {Key::StartedAt, wireTime(startedAt)},
        {Key::FinishedAt, wireTime(finishedAt)},
        {Key::PackageSha256, packageSha256},
        {Key::DatasetSha256, orNull(datasetSha256)},
        {Key::Priority, priority},
        {Key::DatasetManifest, orNull(datasetManifest)},
    };
    if (detailed) {
        QJsonArray list;
        for (const TaskMessage &task : tasks)
            list.append(task.toJson());
        job.insert(Key::Tasks, list);
        job.insert(Key::Events, events);
    }
    return job;
}

Result<JobMessage> JobMessage::fromJson(const QJsonObject &object)
{
    JobMessage job;
    const Result<JobState> state = parseJobState(object.value(Key::State).toString());
    if (!state)
        return state.error();
    job.state = *state;
    job.uuid = object.value(Key::Uuid).toString();
    job.name = object.value(Key::Name).toString();
    job.kind = object.value(Key::Kind).toString();
    job.spec = object.value(Key::Spec).toObject();
    job.commit = object.value(Key::Commit).toString();
    job.attempt = object.value(Key::Attempt).toInt(1);
    job.retryCount = object.value(Key::RetryCount).toInt();
    job.preemptions = object.value(Key::Preemptions).toInt();
    job.reason = object.value(Key::Reason).toString();
    job.createdAt = parseWireTime(object.value(Key::CreatedAt));
    job.startedAt = parseWireTime(object.value(Key::StartedAt));
    job.finishedAt = parseWireTime(object.value(Key::FinishedAt));
    job.packageSha256 = object.value(Key::PackageSha256).toString();
    job.datasetSha256 = object.value(Key::DatasetSha256).toString();
    job.datasetManifest = object.value(Key::DatasetManifest).toString();
    job.priority = object.value(Key::Priority).toInt();
    job.detailed = object.contains(Key::Tasks);
    for (const QJsonValue &value : object.value(Key::Tasks).toArray()) {
        Result<TaskMessage> task = TaskMessage::fromJson(value.toObject());
        if (!task)
            return task.error();
        job.tasks.append(*task);
    }
    job.events = object.value(Key::Events).toArray();
    return job;
}

} // namespace ddl
