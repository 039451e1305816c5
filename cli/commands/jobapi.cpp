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

// GET .../logs of one task with the given extra query items.
static Result<ApiResponse> readLog(CliContext &context,
                                   const QString &uuid,
                                   qint64 taskId,
                                   const QList<QPair<QString, QString>> &items,
                                   LogStream stream = LogStream::All)
{
    QUrlQuery query = LogApi::taskQuery(taskId, stream);
    for (const auto &[name, value] : items)
        query.addQueryItem(name, value);
    return context.sendAuthorized(
        [&](ApiClient &api) { return api.get(LogApi::logsPath(uuid), query); });
}

Result<LogChunk> JobApi::logChunk(CliContext &context,
                                  const QString &uuid,
                                  qint64 taskId,
                                  qint64 offset,
                                  qint64 limit,
                                  LogStream stream)
{
    Result<ApiResponse> answer =
        readLog(context,
                uuid,
                taskId,
                {{u"offset"_s, QString::number(offset)}, {u"limit"_s, QString::number(limit)}},
                stream);
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

Result<qint64> JobApi::followLog(CliContext &context, const QString &uuid, qint64 taskId,
                                qint64 offset, const std::function<void(const QByteArray &)> &onBytes,
                                LogStream stream)
{
    QUrlQuery query = LogApi::taskQuery(taskId, stream);
    query.addQueryItem(u"offset"_s, QString::number(offset));
    query.addQueryItem(u"follow"_s, u"1"_s);
    qint64 next = offset;
    Result<ApiResponse> answer = context.sendAuthorized([&](ApiClient &api) {
        ApiRequest *request = api.get(LogApi::logsPath(uuid), query);
        request->streamBody();
        QObject::connect(request, &ApiRequest::bodyReceived, [&](const QByteArray &bytes) {
            next += bytes.size();
            onBytes(bytes);
        });
        return request;
    });
    if (!answer)
        return answer.error();
    return next;
}

Result<QStringList>
JobApi::logTail(CliContext &context, const QString &uuid, qint64 taskId, int count)
{
    // Enough for count ordinary lines; a longer first line is cut at its start.
    constexpr qint64 KeepBytes = 256 * 1024;
    Result<ApiResponse> answer =
        readLog(context, uuid, taskId, {{u"tail"_s, QString::number(KeepBytes)}});
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
