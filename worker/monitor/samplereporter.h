#pragma once

#include "wire/utilisationsample.h"

#include <QMap>
#include <QObject>

namespace ddl {
class ApiClient;
class ApiRequest;
} // namespace ddl

namespace ddl::worker {

// Sends utilisation samples to the server in batches (POST /v1/workers/samples), one request at
// a time. What could not be sent waits for the next batch, but at most MaxQueued samples per
// task and of the machine are kept: a long outage loses the oldest, not the worker's memory.
class SampleReporter : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxQueued = 120;
    static constexpr int MaxQueuedTasks = 1024; // task ids rise: the map's first is the oldest
    // The server takes at most this many samples and tasks in one request.
    static constexpr int MaxPerBatch = ddl::MaxSamplesPerBatch;
    static constexpr int MaxTasksPerRequest = ddl::MaxTasksPerBatch;

    explicit SampleReporter(ApiClient *client, QObject *parent = nullptr);

    void addTaskSample(qint64 taskId, const ddl::UtilisationSample &sample);
    void addHostSample(const ddl::UtilisationSample &sample);
    // Sends what is queued unless a batch is on its way.
    void flush();
    qsizetype queued() const;

private:
    void handleAnswer();
    static void append(QList<UtilisationSample> &queue, const UtilisationSample &sample);

    ApiClient *m_client;
    ApiRequest *m_request = nullptr;
    QMap<qint64, QList<UtilisationSample>> m_tasks;
    QList<UtilisationSample> m_host;
    // The batch on its way, put back in front of the queues when it fails.
    QMap<qint64, QList<UtilisationSample>> m_sentTasks;
    QList<UtilisationSample> m_sentHost;
    bool m_failureLogged = false;
};

} // namespace ddl::worker
