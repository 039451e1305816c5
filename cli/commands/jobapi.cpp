#include "jobapi.h"

#include "clicontext.h"
#include "outputformat.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

Result<QJsonObject> JobApi::job(CliContext &context, const QString &uuid)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.get(u"/v1/jobs/"_s + uuid); });
    if (!answer)
        return answer.error();
    return answer->json();
}

Result<LogChunk> JobApi::logChunk(
    CliContext &context, const QString &uuid, qint64 taskId, qint64 offset, qint64 limit)
{
    QUrlQuery query;
    query.addQueryItem(u"task"_s, QString::number(taskId));
    query.addQueryItem(u"offset"_s, QString::number(offset));
    query.addQueryItem(u"limit"_s, QString::number(limit));
    Result<ApiResponse> answer = context.sendAuthorized(
        [&](ApiClient &api) { return api.get(u"/v1/jobs/"_s + uuid + u"/logs"_s, query); });
    if (!answer)
        return answer.error();
    LogChunk chunk;
    chunk.bytes = answer->body;
    bool ok = false;
    chunk.offset = answer->header("DDL-Log-Offset").toLongLong(&ok);
    if (!ok)
        chunk.offset = offset;
    chunk.nextOffset = answer->header("DDL-Next-Offset").toLongLong(&ok);
    if (!ok)
        chunk.nextOffset = chunk.offset + chunk.bytes.size();
    chunk.complete = answer->header("DDL-Log-Complete").trimmed() == "1";
    return chunk;
}

Result<QStringList>
JobApi::logTail(CliContext &context, const QString &uuid, qint64 taskId, int count)
{
    // Enough for count ordinary lines; a longer first line is cut at its start.
    constexpr qint64 KeepBytes = 256 * 1024;
    QUrlQuery query;
    query.addQueryItem(u"task"_s, QString::number(taskId));
    query.addQueryItem(u"tail"_s, QString::number(KeepBytes));
    Result<ApiResponse> answer = context.sendAuthorized(
        [&](ApiClient &api) { return api.get(u"/v1/jobs/"_s + uuid + u"/logs"_s, query); });
    if (!answer)
        return answer.error();
    QByteArray tail = answer->body;
    if (answer->header("DDL-Log-Offset").toLongLong() > 0) {
        const qsizetype newline = tail.indexOf('\n');
        if (newline >= 0 && newline + 1 < tail.size())
            tail.remove(0, newline + 1);
    }
    return Output::lastLines(tail, count);
}

} // namespace ddl::cli
