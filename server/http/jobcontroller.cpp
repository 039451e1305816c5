#include "jobcontroller.h"

#include "httpreply.h"
#include "jobs/jobstate.h"
#include "requestreader.h"

#include <QJsonArray>

namespace ddl::server {

static constexpr qint64 MaxSliceBytes = 8 * 1024 * 1024;

void JobController::registerRoutes(QHttpServer &server)
{
    using Method = QHttpServerRequest::Method;
    using Code = QHttpServerResponse::StatusCode;
    server.route(QStringLiteral("/v1/jobs"), Method::Post, [this](const QHttpServerRequest &request) {
        Result<qint64> user = m_auth.user(request);
        if (!user)
            return HttpReply::error(user.error());
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return HttpReply::from(m_context.jobs.submit(*user, *body), Code::Created);
    });
    server.route(QStringLiteral("/v1/jobs"), Method::Get, [this](const QHttpServerRequest &request) {
        Result<qint64> user = m_auth.user(request);
        if (!user)
            return HttpReply::error(user.error());
        Result<qint64> limit = RequestReader::queryInteger(request, QStringLiteral("limit"), 50);
        Result<qint64> offset = RequestReader::queryInteger(request, QStringLiteral("offset"), 0);
        if (!limit || !offset)
            return HttpReply::error(!limit ? limit.error() : offset.error());
        const JobListQuery query{request.query().queryItemValue(QStringLiteral("state")).toUpper(),
                                 int(std::min<qint64>(*limit, 1000)),
                                 int(std::min<qint64>(*offset, INT_MAX))};
        return HttpReply::from(m_context.jobs.list(*user, query));
    });
    server.route(QStringLiteral("/v1/jobs/<arg>"), Method::Get,
                 [this](const QString &uuid, const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.jobs.get(*user, uuid));
                 });
    server.route(QStringLiteral("/v1/jobs/<arg>/cancel"), Method::Post,
                 [this](const QString &uuid, const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.jobs.cancel(*user, uuid));
                 });
    server.route(QStringLiteral("/v1/jobs/<arg>/logs"), Method::Get,
                 [this](const QString &uuid, const QHttpServerRequest &request) {
                     return logs(uuid, request);
                 });
    server.route(QStringLiteral("/v1/jobs/<arg>/artifacts"), Method::Get,
                 [this](const QString &uuid, const QHttpServerRequest &request) {
                     return artifacts(uuid, request);
                 });
    server.route(QStringLiteral("/v1/jobs/<arg>/artifacts/file"), Method::Get,
                 [this](const QString &uuid, const QHttpServerRequest &request) {
                     return artifactFile(uuid, request);
                 });
}

QHttpServerResponse JobController::logs(const QString &uuid, const QHttpServerRequest &request)
{
    Result<qint64> user = m_auth.user(request);
    if (!user)
        return HttpReply::error(user.error());
    Result<JobRef> job = m_context.jobs.find(*user, uuid);
    if (!job)
        return HttpReply::error(job.error());
    Result<qint64> taskId = RequestReader::queryInteger(request, QStringLiteral("task"), -1);
    Result<qint64> offset = RequestReader::queryInteger(request, QStringLiteral("offset"), 0);
    Result<qint64> limit = RequestReader::queryInteger(request, QStringLiteral("limit"),
                                                       LogStorage::MaxReadBytes);
    if (!taskId || !offset || !limit)
        return HttpReply::error(!taskId ? taskId.error() : !offset ? offset.error() : limit.error());
    Result<QString> state = m_context.outputs.taskState(job->id, *taskId);
    if (!state)
        return HttpReply::error(state.error());
    // tail=N starts N bytes before the end, so a client wanting the last lines reads only those.
    Result<qint64> tail = RequestReader::queryInteger(request, QStringLiteral("tail"), -1);
    if (!tail)
        return HttpReply::error(tail.error());
    const qint64 from = *tail >= 0 ? std::max<qint64>(0, m_context.logs.size(*taskId) - *tail)
                                   : *offset;
    Result<LogSlice> slice = m_context.logs.read(*taskId, from, *limit);
    if (!slice)
        return HttpReply::error(slice.error());
    const qint64 next = slice->offset + slice->bytes.size();
    QHttpServerResponse response(QByteArrayLiteral("text/plain; charset=utf-8"),
                                 std::move(slice->bytes));
    response.setHeader("DDL-Log-Offset", QByteArray::number(slice->offset));
    response.setHeader("DDL-Next-Offset", QByteArray::number(next));
    response.setHeader("DDL-Log-Size", QByteArray::number(slice->size));
    response.setHeader("DDL-Task-State", state->toLatin1());
    if (JobState::isFinal(*state) && next >= slice->size)
        response.setHeader("DDL-Log-Complete", "1");
    return response;
}

QHttpServerResponse JobController::artifacts(const QString &uuid, const QHttpServerRequest &request)
{
    Result<qint64> user = m_auth.user(request);
    if (!user)
        return HttpReply::error(user.error());
    Result<JobRef> job = m_context.jobs.find(*user, uuid);
    if (!job)
        return HttpReply::error(job.error());
    Result<QList<ArtifactEntry>> entries = m_context.outputs.artifacts(job->id);
    if (!entries)
        return HttpReply::error(entries.error());
    QJsonArray files;
    for (const ArtifactEntry &entry : *entries) {
        files.append(QJsonObject{{QStringLiteral("path"), entry.path},
                                 {QStringLiteral("size"), entry.size},
                                 {QStringLiteral("sha256"), entry.sha256}});
    }
    return HttpReply::json({{QStringLiteral("files"), files}});
}

QHttpServerResponse JobController::artifactFile(const QString &uuid,
                                                const QHttpServerRequest &request)
{
    Result<qint64> user = m_auth.user(request);
    if (!user)
        return HttpReply::error(user.error());
    Result<JobRef> job = m_context.jobs.find(*user, uuid);
    if (!job)
        return HttpReply::error(job.error());
    Result<ArtifactEntry> entry = m_context.outputs.artifact(
        job->id, request.query().queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded));
    if (!entry)
        return HttpReply::error(entry.error());
    if (entry->size == 0)
        return QHttpServerResponse(QByteArrayLiteral("application/octet-stream"), QByteArray());
    Result<ByteRange> range = RequestReader::range(request, entry->size, MaxSliceBytes);
    if (!range)
        return HttpReply::error(range.error());
    return HttpReply::fileSlice(m_context.blobs.blobPath(entry->sha256), *range);
}

} // namespace ddl::server
