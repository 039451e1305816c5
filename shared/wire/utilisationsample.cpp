#include "utilisationsample.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ddl {

static Error sampleError(const QString &field, const QString &message)
{
    return Error::make(ErrorCode::BadRequest, u"%1: %2"_s.arg(field, message), field);
}

// A finite number >= 0 (percentages may exceed 100: a task on several cores).
// A number >= 0 that a double holds exactly as a whole (at most 2^53), so converting it to an
// integer is defined.
static bool isAmount(const QJsonValue &value)
{
    return value.isDouble() && std::isfinite(value.toDouble()) && value.toDouble() >= 0
           && value.toDouble() <= 9007199254740992.0;
}

QJsonObject UtilisationSample::toJson() const
{
    QJsonArray gpuArray;
    for (const GpuReading &gpu : gpus) {
        gpuArray.append(QJsonObject{{u"index"_s, gpu.index},
                                    {u"utilisation_percent"_s, gpu.utilisationPercent},
                                    {u"memory_used_mb"_s, gpu.memoryUsedMb},
                                    {u"memory_total_mb"_s, gpu.memoryTotalMb}});
    }
    QJsonObject object{{u"at"_s, atMs},
                       {u"cpu_percent"_s, std::round(cpuPercent * 10) / 10},
                       {u"memory_bytes"_s, memoryBytes}};
    if (!gpuArray.isEmpty())
        object.insert(u"gpus"_s, gpuArray);
    return object;
}

Result<UtilisationSample> UtilisationSample::fromJson(const QJsonObject &object)
{
    UtilisationSample sample;
    if (!isAmount(object.value(u"at"_s)))
        return sampleError(u"at"_s, u"must be milliseconds since the epoch"_s);
    sample.atMs = object.value(u"at"_s).toInteger();
    if (!isAmount(object.value(u"cpu_percent"_s)))
        return sampleError(u"cpu_percent"_s, u"must be a number >= 0"_s);
    sample.cpuPercent = object.value(u"cpu_percent"_s).toDouble();
    if (!isAmount(object.value(u"memory_bytes"_s)))
        return sampleError(u"memory_bytes"_s, u"must be a number >= 0"_s);
    sample.memoryBytes = qint64(object.value(u"memory_bytes"_s).toDouble());
    const QJsonValue gpus = object.value(u"gpus"_s);
    if (!gpus.isUndefined() && !gpus.isArray())
        return sampleError(u"gpus"_s, u"must be a list"_s);
    const QJsonArray gpuArray = gpus.toArray();
    if (gpuArray.size() > 64)
        return sampleError(u"gpus"_s, u"must list at most 64 GPUs"_s);
    for (qsizetype i = 0; i < gpuArray.size(); ++i) {
        const QJsonObject gpu = gpuArray.at(i).toObject();
        const QString field = u"gpus[%1]"_s.arg(i);
        for (const QString &key :
             {u"index"_s, u"utilisation_percent"_s, u"memory_used_mb"_s, u"memory_total_mb"_s}) {
            if (!isAmount(gpu.value(key)))
                return sampleError(field + u'.' + key, u"must be a number >= 0"_s);
        }
        sample.gpus.append(GpuReading{gpu.value(u"index"_s).toInt(),
                                      gpu.value(u"utilisation_percent"_s).toDouble(),
                                      gpu.value(u"memory_used_mb"_s).toInteger(),
                                      gpu.value(u"memory_total_mb"_s).toInteger()});
    }
    return sample;
}

QList<UtilisationSample> UtilisationSample::listFromJson(const QJsonArray &array)
{
    QList<UtilisationSample> samples;
    samples.reserve(array.size());
    for (const QJsonValue &value : array) {
        // A sample this version cannot read is left out, not taken as zeros.
        if (Result<UtilisationSample> sample = fromJson(value.toObject()))
            samples.append(*sample);
    }
    return samples;
}

QJsonArray UtilisationSample::listToJson(const QList<UtilisationSample> &samples)
{
    QJsonArray array;
    for (const UtilisationSample &sample : samples)
        array.append(sample.toJson());
    return array;
}

QJsonObject TaskUtilisation::toJson() const
{
    QJsonArray indices;
    for (int index : gpuIndices)
        indices.append(index);
    return {{u"task_id"_s, taskId},
            {u"attempt"_s, attempt},
            {u"role"_s, role},
            {u"role_index"_s, roleIndex},
            {u"state"_s, state},
            {u"worker"_s, worker},
            {u"gpu_indices"_s, indices},
            {u"samples"_s, UtilisationSample::listToJson(samples)}};
}

TaskUtilisation TaskUtilisation::fromJson(const QJsonObject &object)
{
    TaskUtilisation task;
    task.taskId = object.value(u"task_id"_s).toInteger();
    task.attempt = object.value(u"attempt"_s).toInt(1);
    task.role = object.value(u"role"_s).toString();
    task.roleIndex = object.value(u"role_index"_s).toInt();
    task.state = object.value(u"state"_s).toString();
    task.worker = object.value(u"worker"_s).toString();
    for (const QJsonValue &index : object.value(u"gpu_indices"_s).toArray())
        task.gpuIndices.append(index.toInt());
    task.samples = UtilisationSample::listFromJson(object.value(u"samples"_s).toArray());
    return task;
}

QJsonObject WorkerUtilisation::toJson() const
{
    return {{u"worker_id"_s, workerId},
            {u"name"_s, name},
            {u"cpus"_s, cpus},
            {u"memory_mb"_s, memoryMb},
            {u"gpus"_s, gpus},
            {u"samples"_s, UtilisationSample::listToJson(samples)}};
}

WorkerUtilisation WorkerUtilisation::fromJson(const QJsonObject &object)
{
    WorkerUtilisation worker;
    worker.workerId = object.value(u"worker_id"_s).toVariant().toString();
    worker.name = object.value(u"name"_s).toString();
    worker.cpus = object.value(u"cpus"_s).toInt();
    worker.memoryMb = object.value(u"memory_mb"_s).toInteger();
    worker.gpus = object.value(u"gpus"_s).toInt();
    worker.samples = UtilisationSample::listFromJson(object.value(u"samples"_s).toArray());
    return worker;
}

} // namespace ddl
