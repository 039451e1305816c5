#pragma once

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

class MetricStore;

// Reads a task's whole log once, page by page from offset 0 and then as it grows, and feeds it
// to a MetricStore: only the metric points are kept, never the text, so memory stays small
// whatever the log's size.
class MetricCollector : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 PageBytes = 1024 * 1024;
    static constexpr int PollMs = 1000;

    MetricCollector(ApiClient *client, const QString &jobUuid, qint64 taskId, MetricStore *store,
                    QObject *parent = nullptr);
    void start();
    bool isComplete() const { return m_complete; }
    qint64 offset() const { return m_offset; }

signals:
    void completed();

private:
    void fetch();

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    qint64 m_taskId;
    MetricStore *m_store;
    qint64 m_offset = 0;
    bool m_complete = false;
    bool m_busy = false;
    QTimer m_timer;
};

} // namespace ddl::desktop
