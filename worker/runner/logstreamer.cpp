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
    , m_index(logPath + u".index"_s)
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
            ErrorCode::IoError,
            u"cannot open the task log %1: %2"_s.arg(m_writer.fileName(), m_writer.errorString()));
    }
    if (Status indexed = m_index.open(); !indexed)
        return indexed;
    m_timer.start();
    return Ok{};
}

void LogStreamer::append(const QByteArray &bytes, LogSource source)
{
    if (bytes.isEmpty() || !m_writer.isOpen())
        return;
    if (source == LogSource::Worker) {
        write(bytes, source);
        return;
    }
    const int stream = source == LogSource::Stdout ? 0 : 1;
    QByteArray &partial = m_partial[stream];
    partial += bytes;
    const qsizetype lastNewline = partial.lastIndexOf('\n');
    if (lastNewline >= 0) {
        write(partial.first(lastNewline + 1), source);
        partial.remove(0, lastNewline + 1);
        m_partialSince[stream].start();
    } else if (partial.size() == bytes.size()) {
        m_partialSince[stream].start(); // an unfinished line begins
    }
    if (partial.size() >= PartialLineBytes)
        write(std::exchange(partial, {}), source);
}

void LogStreamer::flushPartialLines(qint64 waitedAtLeastMs)
{
    for (int stream = 0; stream < 2; ++stream) {
        if (!m_partial[stream].isEmpty() && m_partialSince[stream].elapsed() >= waitedAtLeastMs)
            write(std::exchange(m_partial[stream], {}),
                  stream == 0 ? LogSource::Stdout : LogSource::Stderr);
    }
}

void LogStreamer::write(const QByteArray &bytes, LogSource source)
{
    const qint64 written = m_writer.write(bytes);
    m_writer.flush();
    if (written > 0) {
        m_written += written;
        m_index.append(source, written);
        m_endsWithNewline = bytes.at(written - 1) == '\n';
    }
}

void LogStreamer::appendLine(const QString &line)
{
    // After an unfinished line of the task's, the worker's line still starts on its own.
    append(QByteArray(m_endsWithNewline ? "" : "\n") + "[ddl-worker] " + line.toUtf8() + '\n',
           LogSource::Worker);
}

void LogStreamer::drain(int timeoutMs)
{
    flushPartialLines();
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
    flushPartialLines(PartialLineMs);
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
    const QList<LogRun> runs = m_index.runs(m_sent, MaxBatch, MaxRunsPerBatch);
    qint64 size = 0;
    for (const LogRun &run : runs)
        size += run.length;
    if (size <= 0)
        return;
    if (!m_reader.seek(m_sent)) {
        qCWarning(lcWorkerRunner).noquote()
            << u"task %1: cannot read its log file %2"_s.arg(m_taskId).arg(m_reader.fileName());
        m_gaveUp = true;
        return;
    }
    const QByteArray batch = m_reader.read(size);
    if (batch.size() != size)
        return; // the index is ahead of what the file shows: the next tick reads again
    m_inflight = batch.size();
    const LogIndex::Position position = m_index.positionAt(m_sent);
    QUrlQuery query;
    query.addQueryItem(u"offset"_s, QString::number(m_sent));
    query.addQueryItem(u"streams"_s, formatRuns(runs));
    query.addQueryItem(u"stdout_offset"_s, QString::number(position.stdoutOffset));
    query.addQueryItem(u"stderr_offset"_s, QString::number(position.stderrOffset));
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
    } else if (result.error().is(ErrorCode::OffsetMismatch)) {
        std::optional<qint64> serverOffset = offsetFromMismatch(result.error(), m_sent);
        const QJsonObject &details = result.error().details;
        if (serverOffset && details.value(u"stdout_offset"_s).isDouble()
            && details.value(u"stderr_offset"_s).isDouble()) {
            // Back to the last point that all three of the server's logs reach; what it holds
            // beyond that in any of them is skipped there, not stored twice.
            serverOffset = m_index.rewindPoint(*serverOffset,
                                               details.value(u"stdout_offset"_s).toInteger(),
                                               details.value(u"stderr_offset"_s).toInteger());
        }
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
    } else if (result.error().is(ErrorCode::NotFound) || result.error().is(ErrorCode::Conflict) ||
               result.error().is(ErrorCode::Forbidden)) {
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

QString formatRuns(const QList<LogRun> &runs)
{
    QString text;
    for (const LogRun &run : runs) {
        if (!text.isEmpty())
            text += u',';
        text += run.source == LogSource::Stdout   ? u'o'
                : run.source == LogSource::Stderr ? u'e'
                                                  : u'w';
        text += QString::number(run.length);
    }
    return text;
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
