#include "jobapi.h"

#include "clicontext.h"
#include "outputformat.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

Result<QJsonObject> JobApi::job(CliContext &context, const QString &uuid)
{
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.job(uuid); });
    if (!answer)
        return answer.error();
    return answer->json();
}

Result<JobMessage> JobApi::jobMessage(CliContext &context, const QString &uuid)
{
    Result<QJsonObject> object = job(context, uuid);
    if (!object)
        return object.error();
    return JobMessage::fromJson(*object);
}

Result<LogPage> JobApi::logChunk(CliContext &context,
                                 const QString &uuid,
                                 qint64 taskId,
                                 qint64 offset,
                                 qint64 limit,
                                 LogStream stream)
{
    Result<ApiResponse> answer = context.sendAuthorized([&](ApiClient &api) {
        return api.readLog(uuid, {taskId, stream, offset, limit});
    });
    if (!answer)
        return answer.error();
    return LogApi::parsePage(*answer, offset);
}

Result<qint64> JobApi::followLog(CliContext &context, const QString &uuid, qint64 taskId,
                                qint64 offset, const std::function<void(const QByteArray &)> &onBytes,
                                LogStream stream)
{
    LogRead read{taskId, stream, offset};
    read.follow = true;
    qint64 next = offset;
    Result<ApiResponse> answer = context.sendAuthorized([&](ApiClient &api) {
        ApiRequest *request = api.readLog(uuid, read);
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
    LogRead read{taskId};
    // Enough for count ordinary lines; a longer first line is cut at its start.
    read.tail = 256 * 1024;
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.readLog(uuid, read); });
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
