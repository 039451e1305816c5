#include "logwindowloader.h"

#include "api/apiclient.h"
#include "core/requestcallback.h"

#include <QUrlQuery>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

LogWindowLoader::LogWindowLoader(ApiClient *client, const QString &jobUuid, qint64 taskId,
                                 LogStream stream, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
    , m_taskId(taskId)
    , m_stream(stream)
{
    m_pollTimer.setInterval(PollMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &LogWindowLoader::poll);
}

void LogWindowLoader::loadAt(qint64 offset)
{
    request(std::max<qint64>(0, offset), WindowBytes, Start::NextLine);
}

void LogWindowLoader::loadFrom(qint64 offset)
{
    request(std::max<qint64>(0, offset), WindowBytes, Start::Exact);
}

void LogWindowLoader::loadTail()
{
    request(0, WindowBytes, Start::Tail);
}

void LogWindowLoader::setFollow(bool follow)
{
    m_follow = follow;
    if (follow) {
        m_pollTimer.start();
        poll();
    } else {
        m_pollTimer.stop();
    }
}

void LogWindowLoader::poll()
{
    if (m_inFlight)
        return;
    if (m_complete && m_windowEnd >= m_logSize) {
        m_pollTimer.stop();
        return;
    }
    request(m_windowEnd, WindowBytes, Start::Append);
}

void LogWindowLoader::request(qint64 offset, qint64 limit, Start mode)
{
    if (!m_client)
        return;
    if (m_inFlight) {
        // A jump replaces a poll still under way; the poll's answer would be for another place.
        m_inFlight->abort();
        m_inFlight = nullptr;
    }
    LogRead read{m_taskId, m_stream, offset, limit};
    if (mode == Start::Tail)
        read.tail = limit;
    ApiRequest *request = m_client->readLog(m_jobUuid, read);
    m_inFlight = request;
    whenFinished(request, this, [this, request, offset, mode](const Result<ApiResponse> &result) {
        if (m_inFlight == request)
            m_inFlight = nullptr;
        if (!result) {
            if (!result.error().is(ErrorCode::Aborted))
                emit failed(result.error());
            return;
        }
        const qint64 start = result->header("DDL-Log-Offset").toLongLong();
        const qint64 next = result->header("DDL-Next-Offset").toLongLong();
        m_logSize = result->header("DDL-Log-Size").toLongLong();
        m_complete = result->header("DDL-Log-Complete") == "1";
        QByteArray bytes = result->body;
        if (mode == Start::Append) {
            if (start != m_windowEnd)
                return; // a jump happened in between
            m_windowEnd = next;
            if (!bytes.isEmpty())
                emit appended(bytes, m_logSize);
            return;
        }
        qint64 windowStart = start;
        // A window in the middle starts on a line of its own (or, from loadFrom, at the offset),
        // never inside a character.
        if (windowStart > 0 && offset > 0 && mode == Start::NextLine) {
            const qsizetype newline = bytes.indexOf('\n');
            if (newline >= 0 && newline + 1 < bytes.size()) {
                bytes.remove(0, newline + 1);
                windowStart += newline + 1;
            }
        } else if (windowStart > 0 && mode == Start::Exact) {
            // UTF-8 continuation bytes (10xxxxxx) belong to a character begun before the window.
            qsizetype skip = 0;
            while (skip < std::min<qsizetype>(3, bytes.size()) &&
                   (uchar(bytes.at(skip)) & 0xC0) == 0x80)
                ++skip;
            bytes.remove(0, skip);
            windowStart += skip;
        }
        m_windowStart = windowStart;
        m_windowEnd = next;
        emit windowLoaded(windowStart, bytes, m_logSize);
    });
}

} // namespace ddl::desktop
