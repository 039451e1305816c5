#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace ddl {

// One GPU as nvidia-smi read it at the moment of a sample.
struct GpuReading
{
    int index = 0;
    double utilisationPercent = 0; // of the GPU's time a kernel ran
    qint64 memoryUsedMb = 0;
    qint64 memoryTotalMb = 0;

    friend bool operator==(const GpuReading &, const GpuReading &) = default;
};

// What one POST /v1/workers/samples may carry: the worker cuts its batches to it, the server
// refuses more.
inline constexpr int MaxSamplesPerBatch = 1000;
inline constexpr int MaxTasksPerBatch = 256;

// What a worker measured at one moment, for one task (its process tree or container) or for
// the whole machine (docs/api.md, "Utilisation"). CPU is in percent of one core: 250 is two and
// a half cores busy.
struct UtilisationSample
{
    qint64 atMs = 0; // milliseconds since the epoch, by the worker's clock
    double cpuPercent = 0;
    qint64 memoryBytes = 0; // resident memory (machine: in use, MemTotal - MemAvailable)
    QList<GpuReading> gpus; // a task's granted GPUs; every GPU for the machine

    QJsonObject toJson() const;
    // Errors name the field ("cpu_percent: must be a number >= 0").
    static Result<UtilisationSample> fromJson(const QJsonObject &object);
    static QList<UtilisationSample> listFromJson(const QJsonArray &array);
    static QJsonArray listToJson(const QList<UtilisationSample> &samples);

    friend bool operator==(const UtilisationSample &, const UtilisationSample &) = default;
};

// One task's series, as GET /v1/jobs/<uuid>/utilisation answers it.
struct TaskUtilisation
{
    qint64 taskId = 0;
    int attempt = 1;
    QString role;
    int roleIndex = 0;
    QString state;
    QString worker; // the worker's name
    QList<int> gpuIndices;
    QList<UtilisationSample> samples; // oldest first

    QJsonObject toJson() const;
    static TaskUtilisation fromJson(const QJsonObject &object);
};

// One worker's series of its whole machine, as GET /v1/workers/<id>/utilisation answers it.
struct WorkerUtilisation
{
    QString workerId;
    QString name;
    int cpus = 0;
    qint64 memoryMb = 0;
    int gpus = 0;
    QList<UtilisationSample> samples; // oldest first

    QJsonObject toJson() const;
    static WorkerUtilisation fromJson(const QJsonObject &object);
};

} // namespace ddl
