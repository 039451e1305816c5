#include "workercontroller.h"

#include "logs/logstorage.h"
#include "workers/ledgerstore.h"
#include "requestreader.h"
#include "scheduler/scheduler.h"
#include "workers/utilisationservice.h"
#include "workers/workerservice.h"

#include <QJsonArray>

namespace ddl::server {

template<typename Handler>
HttpReply WorkerController::forTask(const HttpRequest &request, Handler &&handler)
{
    bool ok = false;
    const qint64 id = request.arg(0).toLongLong(&ok);
    if (!ok) {
        return HttpReply::error(Error::make(ErrorCode::BadRequest,
                                            QStringLiteral("task id must be a number"),
                                            QStringLiteral("task_id")));
    }
    return handler(request.worker(), id);
}

void WorkerController::registerRoutes(Router &router)
{
    // For users: the machines of the pool (the desktop's workers screen).
    router.route("GET", "/v1/workers", Access::User,
                 [this](const HttpRequest &) { return HttpReply::from(m_workers.list()); });
    // A worker's machine over time, for every user as the list is.
    router.route("GET", "/v1/workers/<arg>/utilisation", Access::User,
                 [this](const HttpRequest &request) {
                     return HttpReply::from(m_utilisation.forWorker(request.arg(0)));
                 });
    router.route("POST", "/v1/workers/samples", Access::Worker,
                 [this](const HttpRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return HttpReply::from(m_utilisation.record(request.worker(), *body));
                 });
    router.route("POST", "/v1/workers/enroll", Access::Anyone,
                 [this](const HttpRequest &request) {
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
                     return HttpReply::from(m_workers.enroll(*body, peer.toString()), 201);
                 });
    router.route("POST", "/v1/workers/heartbeat", Access::Worker,
                 [this](const HttpRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return HttpReply::from(m_workers.heartbeat(request.worker(), *body));
                 });
    // The server placed the tasks already (whole jobs at once); the worker collects its own.
    router.route("POST", "/v1/workers/lease", Access::Worker,
                 [this](const HttpRequest &request) {
                     Result<QJsonArray> tasks = m_scheduler.lease(request.worker().id);
                     if (!tasks)
                         return HttpReply::error(tasks.error());
                     return HttpReply::json({{QStringLiteral("tasks"), *tasks}});
                 });
    router.route("POST", "/v1/workers/tasks/<arg>/log", Access::Worker,
                 [this](const HttpRequest &request) { return appendLog(request); });
    router.route("POST", "/v1/workers/tasks/<arg>/state", Access::Worker,
                 [this](const HttpRequest &request) {
                     return forTask(request, [&](const WorkerRef &worker, qint64 id) {
                         Result<QJsonObject> body = RequestReader::jsonBody(request);
                         if (!body)
                             return HttpReply::error(body.error());
                         Status reported = m_workers.reportState(worker, id, *body);
                         return reported ? HttpReply::json({{QStringLiteral("ok"), true}})
                                         : HttpReply::error(reported.error());
                     });
                 });
    router.route("POST", "/v1/workers/tasks/<arg>/events", Access::Worker,
                 [this](const HttpRequest &request) {
                     return forTask(request, [&](const WorkerRef &worker, qint64 id) {
                         Result<QJsonObject> body = RequestReader::jsonBody(request);
                         if (!body)
                             return HttpReply::error(body.error());
                         Status recorded = m_workers.recordEvent(worker, id, *body);
                         return recorded ? HttpReply::json({{QStringLiteral("ok"), true}})
                                         : HttpReply::error(recorded.error());
                     });
                 });
    router.route("POST", "/v1/workers/tasks/<arg>/artifacts", Access::Worker,
                 [this](const HttpRequest &request) {
                     return forTask(request, [&](const WorkerRef &worker, qint64 id) {
                         Result<QJsonObject> body = RequestReader::jsonBody(request);
                         if (!body)
                             return HttpReply::error(body.error());
                         Status recorded = m_workers.recordArtifacts(worker, id, *body);
                         return recorded ? HttpReply::json({{QStringLiteral("ok"), true}})
                                         : HttpReply::error(recorded.error());
                     });
                 });
}

HttpReply WorkerController::appendLog(const HttpRequest &request)
{
    return forTask(request, [&](const WorkerRef &worker, qint64 id) {
        if (Status leased = m_workers.checkLease(worker, id); !leased)
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
        Result<LogOffsets> offsets = m_logs.append(id, batch);
        if (!offsets)
            return HttpReply::error(offsets.error());
        // Only what was stored: a resent batch (the worker missed the answer) counts nothing.
        m_ledger.addTransfer(worker.id, 0, offsets->appended);
        QJsonObject answer{{QStringLiteral("offset"), offsets->merged}};
        if (batch.tagged) {
            answer.insert(QStringLiteral("stdout_offset"), offsets->stdoutSize);
            answer.insert(QStringLiteral("stderr_offset"), offsets->stderrSize);
        }
        return HttpReply::json(answer);
    });
}

} // namespace ddl::server
