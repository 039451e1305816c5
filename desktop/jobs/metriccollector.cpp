#include "metriccollector.h"

#include "api/apiclient.h"
#include "core/requestcallback.h"
#include "models/metricstore.h"

#include <QUrlQuery>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

MetricCollector::MetricCollector(ApiClient *client, const QString &jobUuid, qint64 taskId,
                                 MetricStore *store, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
    , m_taskId(taskId)
    , m_store(store)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &MetricCollector::fetch);
}

void MetricCollector::start()
{
    fetch();
}

void MetricCollector::fetch()
{
    if (!m_client || m_busy || m_complete)
        return;
    m_busy = true;
    whenFinished(m_client->readLog(m_jobUuid, {m_taskId, LogStream::All, m_offset, PageBytes}),
                 this,
                 [this](const Result<ApiResponse> &result) {
                     m_busy = false;
                     if (!result) {
                         m_timer.start(PollMs * 3);
                         return;
                     }
                     m_store->feed(result->body);
                     m_offset = result->header("DDL-Next-Offset").toLongLong();
                     const qint64 size = result->header("DDL-Log-Size").toLongLong();
                     if (result->header("DDL-Log-Complete") == "1") {
                         m_complete = true;
                         emit completed();
                         return;
                     }
                     // More waits on the server: go on at once; else wait for the task to write.
                     m_timer.start(m_offset < size ? 0 : PollMs);
                 });
}

} // namespace ddl::desktop
