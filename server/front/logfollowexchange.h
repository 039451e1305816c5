#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include "api/logapi.h"

#include <QElapsedTimer>
#include <QTimer>

namespace ddl::server {

class JobOutputs;
class LogStorage;

// GET /v1/jobs/<uuid>/logs?task=N&offset=X&follow=1[&stream=stdout|stderr]: the task's log (the
// merged one, or one stream of it) from offset, sent as chunked
// transfer encoding while the worker appends to it (checked every 100 ms), ending when the task
// has ended and every byte is out, or after MaxSeconds so that no connection sits idle for
// long; the client then reads on from where it is.
class LogFollowExchange : public DataExchange
{
public:
    static constexpr int MaxSeconds = 20;
    static constexpr int CheckMs = 100;

    LogFollowExchange(QSslSocket *socket, LogStorage &logs, JobOutputs &outputs, qint64 jobId,
                      qint64 taskId, qint64 offset, const RequestHead &head);

    Step start() override;
    Step onWritten() override;

private:
    Step pump();

    LogStorage &m_logs;
    JobOutputs &m_outputs;
    qint64 m_jobId;
    qint64 m_taskId;
    qint64 m_offset;
    RequestHead m_head;
    Result<LogStream> m_stream; // an error: the request named no known stream
    QTimer m_check;
    QElapsedTimer m_since;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace ddl::server
