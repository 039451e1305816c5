#include "logstreamer.h"

#include "api/apiclient.h"
#include "workerlogging.h"

#include <QRegularExpression>
#include <QSet>

using namespace Qt::StringLiterals;

namespace ddl::worker {

LogStreamer::LogStreamer(
    ApiClient *client, qint64 taskId, const QString &logPath, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_taskId(taskId)
    , m_writer(logPath)
    , m_reader(logPath)
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LogStreamer::handleTick);
    m_drainTimer.setSingleShot(true);
    connect(&m_drainTimer, &QTimer::timeout, this, [this] {
        qCWarning(lcWorkerRunner).noquote()
            << u"task %1: %2 bytes of its log could not be sent to the server; they are kept in "
               u"%3"_s.arg(m_taskId)
                   .arg(m_written - m_sent)
                   .arg(m_writer.fileName());
        finishDrain();
    });
}

Status LogStreamer::open()
{
    if (!m_writer.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        !m_reader.open(QIODevice::ReadOnly)) {
        return Error::make(
            u"io_error"_s,
            u"cannot open the task log %1: %2"_s.arg(m_writer.fileName(), m_writer.errorString()));
    }
    m_timer.start();
    return Ok{};
}

void LogStreamer::append(const QByteArray &bytes)
{
    if (bytes.isEmpty() || !m_writer.isOpen())
        return;
    const qint64 written = m_writer.write(bytes);
    m_writer.flush();
    if (written > 0)
        m_written += written;
}

void LogStreamer::appendLine(const QString &line)
{
    append("[ddl-worker] " + line.toUtf8() + '\n');
}

void LogStreamer::drain(int timeoutMs)
{
    m_draining = true;
    if (m_gaveUp || (m_sent >= m_written && !m_request)) {
        QTimer::singleShot(0, this, &LogStreamer::finishDrain);
        return;
    }
    m_drainTimer.start(timeoutMs);
    m_failures = 0; // try at once, whatever the backoff
    handleTick();
}

void LogStreamer::finishDrain()
{
    if (!m_draining)
        return;
    m_draining = false;
    m_drainTimer.stop();
    m_timer.stop();
    emit drained();
}

void LogStreamer::handleTick()
{
    if (m_request || m_gaveUp || m_sent >= m_written)
        return;
    if (m_failures > 0) {
        // Back off while the server is away: 0.2 s, 0.4 s, ... up to 5 s between tries.
        const qint64 wait = std::min<qint64>(5000, 100LL << std::min(m_failures, 6));
        if (m_sinceFailure.elapsed() < wait)
            return;
    }
    sendBatch();
}

void LogStreamer::sendBatch()
{
    const qint64 size = std::min(MaxBatch, m_written - m_sent);
    if (!m_reader.seek(m_sent)) {
        qCWarning(lcWorkerRunner).noquote()
            << u"task %1: cannot read its log file %2"_s.arg(m_taskId).arg(m_reader.fileName());
        m_gaveUp = true;
        return;
    }
    const QByteArray batch = m_reader.read(size);
    if (batch.isEmpty())
        return;
    m_inflight = batch.size();
    QUrlQuery query;
    query.addQueryItem(u"offset"_s, QString::number(m_sent));
    m_request =
        m_client->sendBytes("POST", u"/v1/workers/tasks/%1/log"_s.arg(m_taskId), batch, query);
    connect(m_request, &ApiRequest::finished, this, &LogStreamer::handleAnswer);
}

void LogStreamer::handleAnswer()
{
    ApiRequest *request = std::exchange(m_request, nullptr);
    request->deleteLater();
    const Result<ApiResponse> &result = request->result();
    if (result) {
        const QJsonValue offset = result->json().value(u"offset"_s);
        const qint64 next = offset.isDouble() ? offset.toInteger() : m_sent + m_inflight;
        m_sent = std::clamp<qint64>(next, 0, m_written);
        m_failures = 0;
    } else if (result.error().code == u"offset_mismatch") {
        const std::optional<qint64> serverOffset = offsetFromMismatch(result.error(), m_sent);
        if (serverOffset) {
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: the server holds %2 bytes of the log, the worker sent from %3; "
                   u"going on from %2"_s.arg(m_taskId)
                       .arg(*serverOffset)
                       .arg(m_sent);
            m_sent = std::clamp<qint64>(*serverOffset, 0, m_written);
        } else {
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: the server refused log bytes at offset %2 (%3); skipping %4 bytes"_s
                       .arg(m_taskId)
                       .arg(m_sent)
                       .arg(result.error().message)
                       .arg(m_inflight);
            m_sent += m_inflight;
        }
        m_failures = 0;
    } else if (result.error().code == u"not_found" || result.error().code == u"conflict" ||
               result.error().code == u"forbidden") {
        qCWarning(lcWorkerRunner).noquote()
            << u"task %1: the server no longer takes its log (%2); it stays in %3"_s.arg(m_taskId)
                   .arg(result.error().message, m_writer.fileName());
        m_gaveUp = true;
    } else {
        if (m_failures == 0) {
            qCWarning(lcWorkerRunner).noquote()
                << u"task %1: cannot send its log (%2); retrying"_s.arg(m_taskId).arg(
                       result.error().message);
        }
        ++m_failures;
        m_sinceFailure.start();
    }
    if (m_draining && (m_gaveUp || m_sent >= m_written))
        finishDrain();
    else if (m_draining)
        handleTick();
}

std::optional<qint64> offsetFromMismatch(const Error &error, qint64 sentOffset)
{
    const QJsonValue stored = error.details.value(u"offset"_s);
    if (stored.isDouble())
        return stored.toInteger();
    static const QRegularExpression number(u"\\d+"_s);
    QSet<qint64> candidates;
    for (const QRegularExpressionMatch &match : number.globalMatch(error.message)) {
        const qint64 value = match.captured().toLongLong();
        if (value != sentOffset)
            candidates.insert(value);
    }
    if (candidates.size() != 1)
        return std::nullopt;
    return *candidates.cbegin();
}

} // namespace ddl::worker
