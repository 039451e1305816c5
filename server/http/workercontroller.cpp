#include "workercontroller.h"

#include "core/sha256.h"
#include "httpreply.h"
#include "requestreader.h"

#include <QFileInfo>
#include <QJsonArray>

namespace ddl::server {

static constexpr qint64 MaxSliceBytes = 8 * 1024 * 1024;

template<typename Handler>
QHttpServerResponse WorkerController::forTask(const QString &taskId,
                                              const QHttpServerRequest &request, Handler &&handler)
{
    Result<WorkerRef> worker = m_auth.worker(request);
    if (!worker)
        return HttpReply::error(worker.error());
    bool ok = false;
    const qint64 id = taskId.toLongLong(&ok);
    if (!ok) {
        return HttpReply::error(Error::make(ErrorCode::BadRequest,
                                            QStringLiteral("task id must be a number"),
                                            QStringLiteral("task_id")));
    }
    return handler(*worker, id);
}

void WorkerController::registerRoutes(QHttpServer &server)
{
    using Method = QHttpServerRequest::Method;
    // For users: the machines of the pool (the desktop's workers screen).
    server.route(QStringLiteral("/v1/workers"), Method::Get,
                 [this](const QHttpServerRequest &request) {
                     Result<qint64> user = m_auth.user(request);
                     if (!user)
                         return HttpReply::error(user.error());
                     return HttpReply::from(m_context.workers.list());
                 });
    server.route(QStringLiteral("/v1/workers/enroll"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     QHostAddress peer = request.remoteAddress();
                     if (peer.protocol() == QAbstractSocket::IPv6Protocol) {
                         bool mapped = false;
                         const QHostAddress v4(peer.toIPv4Address(&mapped));
                         if (mapped)
                             peer = v4;
                     }
                     return HttpReply::from(m_context.workers.enroll(*body, peer.toString()),
                                            QHttpServerResponse::StatusCode::Created);
                 });
    server.route(QStringLiteral("/v1/workers/heartbeat"), Method::Post,
                 [this](const QHttpServerRequest &request) {
                     Result<WorkerRef> worker = m_auth.worker(request);
                     if (!worker)
                         return HttpReply::error(worker.error());
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return HttpReply::from(m_context.workers.heartbeat(*worker, *body));
                 });
    server.route(QStringLiteral("/v1/workers/lease"), Method::Post,
                 [this](const QHttpServerRequest &request) { return lease(request); });
    server.route(QStringLiteral("/v1/workers/blobs/<arg>"), Method::Get,
                 [this](const QString &sha256, const QHttpServerRequest &request) {
                     return blob(sha256, request);
                 });
    server.route(QStringLiteral("/v1/workers/tasks/<arg>/log"), Method::Post,
                 [this](const QString &taskId, const QHttpServerRequest &request) {
                     return appendLog(taskId, request);
                 });
    server.route(QStringLiteral("/v1/workers/tasks/<arg>/state"), Method::Post,
                 [this](const QString &taskId, const QHttpServerRequest &request) {
                     return forTask(taskId, request, [&](const WorkerRef &worker, qint64 id) {
                         Result<QJsonObject> body = RequestReader::jsonBody(request);
                         if (!body)
                             return HttpReply::error(body.error());
                         Status reported = m_context.workers.reportState(worker, id, *body);
                         return reported ? HttpReply::json({{QStringLiteral("ok"), true}})
                                         : HttpReply::error(reported.error());
                     });
                 });
    server.route(QStringLiteral("/v1/workers/tasks/<arg>/artifacts"), Method::Post,
                 [this](const QString &taskId, const QHttpServerRequest &request) {
                     return forTask(taskId, request, [&](const WorkerRef &worker, qint64 id) {
                         Result<QJsonObject> body = RequestReader::jsonBody(request);
                         if (!body)
                             return HttpReply::error(body.error());
                         Status recorded = m_context.workers.recordArtifacts(worker, id, *body);
                         return recorded ? HttpReply::json({{QStringLiteral("ok"), true}})
                                         : HttpReply::error(recorded.error());
                     });
                 });
}

QHttpServerResponse WorkerController::lease(const QHttpServerRequest &request)
{
    Result<WorkerRef> worker = m_auth.worker(request);
    if (!worker)
        return HttpReply::error(worker.error());
    // The server placed the tasks already (whole jobs at once); the worker collects its own.
    Result<QJsonArray> tasks = m_context.scheduler.lease(worker->id);
    if (!tasks)
        return HttpReply::error(tasks.error());
    return HttpReply::json({{QStringLiteral("tasks"), *tasks}});
}

QHttpServerResponse WorkerController::blob(const QString &sha256, const QHttpServerRequest &request)
{
    Result<WorkerRef> worker = m_auth.worker(request);
    if (!worker)
        return HttpReply::error(worker.error());
    // Workers read only the code and data of tasks they hold; anything else is not there.
    if (!isSha256Hex(sha256) || !m_context.workers.mayRead(*worker, sha256)
        || !m_context.blobs.hasBlob(sha256)) {
        return HttpReply::error(
            Error::make(ErrorCode::NotFound,
                        QStringLiteral("no blob %1 for this worker's tasks").arg(sha256.left(64)),
                        QStringLiteral("sha256")));
    }
    const QString path = m_context.blobs.blobPath(sha256);
    const qint64 size = QFileInfo(path).size();
    if (size == 0)
        return QHttpServerResponse(QByteArrayLiteral("application/octet-stream"), QByteArray());
    Result<ByteRange> range = RequestReader::range(request, size, MaxSliceBytes);
    if (!range)
        return HttpReply::error(range.error());
    return HttpReply::fileSlice(path, *range);
}

QHttpServerResponse WorkerController::appendLog(const QString &taskId,
                                                const QHttpServerRequest &request)
{
    return forTask(taskId, request, [&](const WorkerRef &worker, qint64 id) {
        if (Status leased = m_context.workers.checkLease(worker, id); !leased)
            return HttpReply::error(leased.error());
        Result<qint64> offset = RequestReader::queryInteger(request, QStringLiteral("offset"), -1);
        if (!offset || *offset < 0) {
            return HttpReply::error(Error::make(ErrorCode::BadRequest,
                                                QStringLiteral("a log batch needs ?offset=N"),
                                                QStringLiteral("offset")));
        }
        LogBatch batch;
        batch.offset = *offset;
        batch.bytes = request.body();
        // A worker that tells the streams (?streams=o120,e45,w30&stdout_offset=A&stderr_offset=B)
        // has them kept apart as well; an older worker's bytes go to the merged log only.
        const QUrlQuery query = request.query();
        if (query.hasQueryItem(QStringLiteral("streams"))) {
            Result<QList<LogSegment>> segments = LogBatch::parseSegments(
                query.queryItemValue(QStringLiteral("streams")), batch.bytes.size());
            if (!segments)
                return HttpReply::error(segments.error());
            Result<qint64> stdoutOffset =
                RequestReader::queryInteger(request, QStringLiteral("stdout_offset"), -1);
            Result<qint64> stderrOffset =
                RequestReader::queryInteger(request, QStringLiteral("stderr_offset"), -1);
            if (!stdoutOffset || !stderrOffset || *stdoutOffset < 0 || *stderrOffset < 0) {
                return HttpReply::error(
                    Error::make(ErrorCode::BadRequest,
                                QStringLiteral("a log batch with ?streams needs ?stdout_offset=N "
                                               "and ?stderr_offset=N"),
                                QStringLiteral("stdout_offset")));
            }
            batch.tagged = true;
            batch.segments = std::move(*segments);
            batch.stdoutOffset = *stdoutOffset;
            batch.stderrOffset = *stderrOffset;
        }
        Result<LogOffsets> offsets = m_context.logs.append(id, batch);
        if (!offsets)
            return HttpReply::error(offsets.error());
        QJsonObject answer{{QStringLiteral("offset"), offsets->merged}};
        if (batch.tagged) {
            answer.insert(QStringLiteral("stdout_offset"), offsets->stdoutSize);
            answer.insert(QStringLiteral("stderr_offset"), offsets->stderrSize);
        }
        return HttpReply::json(answer);
    });
}

} // namespace ddl::server
