#include "logfollowexchange.h"

#include "jobs/joboutputs.h"
#include "wire/jobstate.h"
#include "logs/logstorage.h"

namespace ddl::server {

static constexpr qint64 PieceBytes = 256 * 1024;
static constexpr qint64 HighWaterBytes = 1024 * 1024;

LogFollowExchange::LogFollowExchange(QSslSocket *socket, LogStorage &logs, JobOutputs &outputs,
                                     qint64 jobId, qint64 taskId, qint64 offset,
                                     const RequestHead &head)
    : DataExchange(socket)
    , m_logs(logs)
    , m_outputs(outputs)
    , m_jobId(jobId)
    , m_taskId(taskId)
    , m_offset(offset)
    , m_head(head)
    , m_stream(requestedLogStream(head.query))
{
    m_check.setSingleShot(true);
    m_check.setInterval(CheckMs);
    QObject::connect(&m_check, &QTimer::timeout, &m_check, [this] { step(pump()); });
}

DataExchange::Step LogFollowExchange::start()
{
    if (!m_stream) {
        write(HttpReply::error(m_stream.error()), m_head.keepAlive);
        return m_head.keepAlive ? Step::Done : Step::DoneClose;
    }
    m_offset = std::clamp<qint64>(m_offset, 0, m_logs.size(m_taskId, *m_stream));
    m_socket->write(HttpReply::head(200,
                                     {{"Content-Type", "text/plain; charset=utf-8"},
                                      {"Transfer-Encoding", "chunked"},
                                      {"Cache-Control", "no-store"},
                                      {"DDL-Log-Offset", QByteArray::number(m_offset)},
                                      {"DDL-Log-Stream", logStreamName(*m_stream).toLatin1()}},
                                     -1, m_head.keepAlive));
    m_since.start();
    return pump();
}

DataExchange::Step LogFollowExchange::onWritten()
{
    return m_check.isActive() ? Step::Continue : pump();
}

DataExchange::Step LogFollowExchange::pump()
{
    while (m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite() < HighWaterBytes) {
        Result<LogSlice> slice = m_logs.read(m_taskId, m_offset, PieceBytes, *m_stream);
        if (!slice || slice->bytes.isEmpty())
            break;
        m_socket->write(QByteArray::number(slice->bytes.size(), 16) + "\r\n");
        m_socket->write(slice->bytes);
        m_socket->write("\r\n");
        m_offset += slice->bytes.size();
    }
    if (m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite() >= HighWaterBytes)
        return Step::Continue; // onWritten() goes on
    const bool caughtUp = m_offset >= m_logs.size(m_taskId, *m_stream);
    Result<QString> state = m_outputs.taskState(m_jobId, m_taskId);
    const bool ended = !state || isFinalState(*state);
    if ((caughtUp && ended) || m_since.elapsed() > MaxSeconds * 1000) {
        m_socket->write("0\r\n\r\n");
        return m_head.keepAlive ? Step::Done : Step::DoneClose;
    }
    m_check.start();
    return Step::Continue;
}

} // namespace ddl::server
