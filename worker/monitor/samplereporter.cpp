#include "samplereporter.h"

#include "api/apiclient.h"
#include "wire/errorcode.h"
#include "workerlogging.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

SampleReporter::SampleReporter(ApiClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

void SampleReporter::append(QList<UtilisationSample> &queue, const UtilisationSample &sample)
{
    queue.append(sample);
    if (queue.size() > MaxQueued)
        queue.remove(0, queue.size() - MaxQueued);
}

void SampleReporter::addTaskSample(qint64 taskId, const UtilisationSample &sample)
{
    // Tasks come and go during an outage: the oldest ones' samples go first.
    if (!m_tasks.contains(taskId) && m_tasks.size() >= MaxQueuedTasks)
        m_tasks.erase(m_tasks.begin());
    append(m_tasks[taskId], sample);
}

void SampleReporter::addHostSample(const UtilisationSample &sample)
{
    append(m_host, sample);
}

qsizetype SampleReporter::queued() const
{
    qsizetype count = m_host.size();
    for (const QList<UtilisationSample> &samples : m_tasks)
        count += samples.size();
    return count;
}

void SampleReporter::flush()
{
    if (m_request || (m_host.isEmpty() && m_tasks.isEmpty()))
        return;
    int budget = MaxPerBatch;
    m_sentHost = m_host.first(std::min<qsizetype>(m_host.size(), budget));
    m_host.remove(0, m_sentHost.size());
    budget -= int(m_sentHost.size());
    QJsonArray tasks;
    for (auto it = m_tasks.begin();
         it != m_tasks.end() && budget > 0 && tasks.size() < MaxTasksPerRequest;) {
        QList<UtilisationSample> &queue = it.value();
        const QList<UtilisationSample> batch =
            queue.first(std::min<qsizetype>(queue.size(), budget));
        queue.remove(0, batch.size());
        budget -= int(batch.size());
        tasks.append(QJsonObject{{u"task_id"_s, it.key()},
                                 {u"samples"_s, UtilisationSample::listToJson(batch)}});
        m_sentTasks.insert(it.key(), batch);
        it = queue.isEmpty() ? m_tasks.erase(it) : std::next(it);
    }
    const QJsonObject body{{u"worker"_s, UtilisationSample::listToJson(m_sentHost)},
                           {u"tasks"_s, tasks}};
    m_request = m_client->postJson(u"/v1/workers/samples"_s, body);
    connect(m_request, &ApiRequest::finished, this, &SampleReporter::handleAnswer);
}

void SampleReporter::handleAnswer()
{
    ApiRequest *request = std::exchange(m_request, nullptr);
    request->deleteLater();
    const Result<ApiResponse> &result = request->result();
    const QList<UtilisationSample> sentHost = std::exchange(m_sentHost, {});
    const QMap<qint64, QList<UtilisationSample>> sentTasks = std::exchange(m_sentTasks, {});
    if (result) {
        m_failureLogged = false;
        return;
    }
    // A refused batch (4xx) would be refused again: only what the server did not get is kept.
    if (!isTransient(result.error())) {
        qCWarning(lcWorkerAgent).noquote()
            << "the server refused utilisation samples:" << result.error().message;
        return;
    }
    if (!std::exchange(m_failureLogged, true)) {
        qCInfo(lcWorkerAgent).noquote()
            << "utilisation samples wait for the server:" << result.error().message;
    }
    m_host = sentHost + m_host;
    if (m_host.size() > MaxQueued)
        m_host.remove(0, m_host.size() - MaxQueued);
    for (auto it = sentTasks.cbegin(); it != sentTasks.cend(); ++it) {
        QList<UtilisationSample> &queue = m_tasks[it.key()];
        queue = it.value() + queue;
        if (queue.size() > MaxQueued)
            queue.remove(0, queue.size() - MaxQueued);
    }
}

} // namespace ddl::worker
