#include "logapi.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace ddl {

QString logStreamName(LogStream stream)
{
    switch (stream) {
    case LogStream::Stdout:
        return u"stdout"_s;
    case LogStream::Stderr:
        return u"stderr"_s;
    case LogStream::All:
        break;
    }
    return u"all"_s;
}

std::optional<LogStream> parseLogStream(const QString &name)
{
    if (name.isEmpty() || name == u"all"_s)
        return LogStream::All;
    if (name == u"stdout"_s)
        return LogStream::Stdout;
    if (name == u"stderr"_s)
        return LogStream::Stderr;
    return std::nullopt;
}

namespace LogApi {

QString logsPath(const QString &jobUuid)
{
    return u"/v1/jobs/"_s + jobUuid + u"/logs"_s;
}

QString searchPath(const QString &jobUuid)
{
    return logsPath(jobUuid) + u"/search"_s;
}

// task=N and, unless All, stream=...
static QUrlQuery taskQuery(qint64 taskId, LogStream stream)
{
    QUrlQuery query;
    query.addQueryItem(u"task"_s, QString::number(taskId));
    if (stream != LogStream::All)
        query.addQueryItem(u"stream"_s, logStreamName(stream));
    return query;
}

QUrlQuery readQuery(const LogRead &read)
{
    QUrlQuery query = taskQuery(read.taskId, read.stream);
    if (read.tail >= 0) {
        query.addQueryItem(u"tail"_s, QString::number(read.tail));
        return query;
    }
    query.addQueryItem(u"offset"_s, QString::number(read.offset));
    if (read.limit >= 0)
        query.addQueryItem(u"limit"_s, QString::number(read.limit));
    if (read.follow)
        query.addQueryItem(u"follow"_s, u"1"_s);
    return query;
}

LogPage parsePage(const ApiResponse &response, qint64 requestedOffset)
{
    LogPage page;
    page.bytes = response.body;
    bool ok = false;
    page.offset = response.header("DDL-Log-Offset").toLongLong(&ok);
    if (!ok)
        page.offset = requestedOffset;
    page.nextOffset = response.header("DDL-Next-Offset").toLongLong(&ok);
    if (!ok)
        page.nextOffset = page.offset + page.bytes.size();
    page.size = response.header("DDL-Log-Size").toLongLong();
    page.complete = response.header("DDL-Log-Complete").trimmed() == "1";
    return page;
}

QUrlQuery searchQuery(const LogSearchRequest &request)
{
    QUrlQuery query = taskQuery(request.taskId, request.stream);
    // Fully encoded: the text may hold '&', '+', '#' or '%'.
    query.addQueryItem(u"q"_s, QString::fromLatin1(QUrl::toPercentEncoding(request.text)));
    if (request.from >= 0)
        query.addQueryItem(u"from"_s, QString::number(request.from));
    query.addQueryItem(u"direction"_s, request.backward ? u"backward"_s : u"forward"_s);
    if (request.ignoreCase)
        query.addQueryItem(u"ignore_case"_s, u"1"_s);
    return query;
}

Result<LogSearchAnswer> parseSearchAnswer(const ApiResponse &response)
{
    const QJsonObject json = response.json();
    if (!json.value(u"scanned_to"_s).isDouble() || !json.value(u"matches"_s).isArray()) {
        return Error::make(ErrorCode::BadAnswer,
                           u"the server's log search answer has no matches or scanned_to"_s);
    }
    LogSearchAnswer answer;
    answer.scannedTo = json.value(u"scanned_to"_s).toInteger();
    answer.size = json.value(u"size"_s).toInteger();
    answer.done = json.value(u"done"_s).toBool();
    for (const QJsonValue &value : json.value(u"matches"_s).toArray()) {
        const QJsonObject match = value.toObject();
        answer.matches.append(
            {match.value(u"offset"_s).toInteger(), match.value(u"line_start"_s).toInteger()});
    }
    return answer;
}

} // namespace LogApi

} // namespace ddl
