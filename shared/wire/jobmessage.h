#pragma once

#include "core/result.h"
#include "jobstate.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>

#include <optional>

namespace ddl {

// One task of a job as the wire shows it (GET /v1/jobs/<job>, docs/api.md).
struct TaskMessage
{
    qint64 id = 0;
    int index = 0; // in the job, across roles
    QString role;
    int roleIndex = 0;
    JobState state = JobState::Waiting;
    std::optional<int> exitCode;
    QString worker; // the worker's name; empty before it was placed
    QString address; // where the worker's tasks are reached (its advertised address)
    // The worker's trust score now, 0 to 100 (docs/trust.md); absent before it was placed.
    std::optional<int> workerTrust;
    int port = 0;    // the task's own port on it (PAI_CURRENT_CONTAINER_PORT); 0 before placing
    QMap<QString, QList<int>> ports; // an OpenPAI portList's label -> the ports booked for it
    QList<int> gpus;                 // the worker's GPU indices the task was given
    int attempt = 1;
    QDateTime startedAt; // invalid when absent
    QDateTime finishedAt;
    QString message;

    QJsonObject toJson() const;
    // Refuses an unknown state, naming it.
    static Result<TaskMessage> fromJson(const QJsonObject &object);

    friend bool operator==(const TaskMessage &, const TaskMessage &) = default;
};

// One job as the wire shows it: in a listing (GET /v1/jobs) without tasks and events, in detail
// (GET /v1/jobs/<job>, submit, cancel) with them.
struct JobMessage
{
    QString uuid;
    QString name;
    QString kind; // "ddl" or "openpai"
    JobState state = JobState::Waiting;
    QJsonObject spec; // the normalised JobSpec's wire form
    QString commit;
    int attempt = 1;
    int retryCount = 0;
    // Attempts that ended because a worker's owner took the machine back; they spend no retry
    // (attempt - preemptions - 1 retries are spent).
    int preemptions = 0;
    QString reason; // why a waiting job waits, or why a job failed
    QDateTime createdAt;
    QDateTime startedAt;
    QDateTime finishedAt;
    QString packageSha256;
    QString datasetSha256;
    QString datasetManifest;
    int priority = 0;
    bool detailed = false; // tasks and events are part of the message
    QList<TaskMessage> tasks;
    QJsonArray events; // [{"at": time, "message": text}]

    QJsonObject toJson() const;
    // Refuses an unknown state of the job or a task, naming it.
    static Result<JobMessage> fromJson(const QJsonObject &object);
};

// The wire's time: ISO 8601 in UTC with milliseconds; null for an invalid time.
QJsonValue wireTime(const QDateTime &time);
QDateTime parseWireTime(const QJsonValue &value);

} // namespace ddl
