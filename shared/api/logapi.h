#pragma once

#include "apiresponse.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrlQuery>

#include <optional>

namespace ddl {

// Which of a task's logs a read names (GET /v1/jobs/<uuid>/logs?stream=...): the merged log of
// everything the task wrote (and the worker's own lines), or only its stdout or stderr.
enum class LogStream { All, Stdout, Stderr };

// "all", "stdout", "stderr": the names on the wire.
QString logStreamName(LogStream stream);
// The stream a wire name means; nothing for anything else (an empty name is All).
std::optional<LogStream> parseLogStream(const QString &name);

// One match of a log search: where the match starts, and where its line starts (for a line
// longer than 1 MiB: 1 MiB before the match).
struct LogMatch
{
    qint64 offset = 0;
    qint64 lineStart = 0;
};

// The answer of GET /v1/jobs/<uuid>/logs/search (docs/api.md).
struct LogSearchAnswer
{
    QList<LogMatch> matches;  // in the direction of the search: nearest to `from` first
    qint64 scannedTo = 0;     // where the next request in the same direction continues
    qint64 size = 0;          // the log's size when the search ran
    bool done = false;        // the scan reached the log's end (forward) or start (backward)
};

// What to search for, and where.
struct LogSearchRequest
{
    qint64 taskId = 0;
    QString text;
    LogStream stream = LogStream::All;
    qint64 from = -1; // -1: from the start (forward) or the end (backward)
    bool backward = false;
    bool ignoreCase = false;
};

// Which piece of a task's log to read: from offset (at most limit bytes), or its last tail
// bytes, or (follow) streamed as the task writes it, until it ends or for up to 20 s.
struct LogRead
{
    qint64 taskId = 0;
    LogStream stream = LogStream::All;
    qint64 offset = 0;
    qint64 limit = -1; // -1: the server's page size
    qint64 tail = -1;  // >= 0: the last tail bytes instead of offset and limit
    bool follow = false;
};

// A piece of one task's log, as GET /v1/jobs/<uuid>/logs answers it.
struct LogPage
{
    QByteArray bytes;
    qint64 offset = 0;     // where bytes start
    qint64 nextOffset = 0; // where the next read continues
    qint64 size = 0;       // the log's size when it was read
    bool complete = false; // the task ended and this is the end of its log
};

// The query items and answers of the log endpoints, shared by ddlcli and ddl-desktop.
namespace LogApi {
// "/v1/jobs/<uuid>/logs" and "/v1/jobs/<uuid>/logs/search".
QString logsPath(const QString &jobUuid);
QString searchPath(const QString &jobUuid);
QUrlQuery readQuery(const LogRead &read);
QUrlQuery searchQuery(const LogSearchRequest &request);
// requestedOffset stands in for a missing DDL-Log-Offset header.
LogPage parsePage(const ApiResponse &response, qint64 requestedOffset = 0);
Result<LogSearchAnswer> parseSearchAnswer(const ApiResponse &response);
} // namespace LogApi

} // namespace ddl
