#include "jobcontroller.h"

#include "httpreply.h"
#include "logs/logsearch.h"
#include "requestreader.h"
#include "wire/jobstate.h"

#include <QFutureWatcher>
#include <QJsonArray>
#include <QTcpSocket>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

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
    server.route(QStringLiteral("/v1/jobs/<arg>/logs/search"), Method::Get,
                 [this](const QString &uuid, const QHttpServerRequest &request,
                        QHttpServerResponder &&responder) {
                     searchLogs(uuid, request, std::move(responder));
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
    Result<LogStream> stream = requestedLogStream(request.query());
    if (!stream)
        return HttpReply::error(stream.error());
    Result<QString> state = m_context.outputs.taskState(job->id, *taskId);
    if (!state)
        return HttpReply::error(state.error());
    // tail=N starts N bytes before the end, so a client wanting the last lines reads only those.
    Result<qint64> tail = RequestReader::queryInteger(request, QStringLiteral("tail"), -1);
    if (!tail)
        return HttpReply::error(tail.error());
    const qint64 from = *tail >= 0
                            ? std::max<qint64>(0, m_context.logs.size(*taskId, *stream) - *tail)
                            : *offset;
    Result<LogSlice> slice = m_context.logs.read(*taskId, from, *limit, *stream);
    if (!slice)
        return HttpReply::error(slice.error());
    const qint64 next = slice->offset + slice->bytes.size();
    QHttpServerResponse response(QByteArrayLiteral("text/plain; charset=utf-8"),
                                 std::move(slice->bytes));
    response.setHeader("DDL-Log-Offset", QByteArray::number(slice->offset));
    response.setHeader("DDL-Next-Offset", QByteArray::number(next));
    response.setHeader("DDL-Log-Size", QByteArray::number(slice->size));
    response.setHeader("DDL-Log-Stream", logStreamName(*stream).toLatin1());
    response.setHeader("DDL-Task-State", state->toLatin1());
    if (isFinalState(*state) && next >= slice->size)
        response.setHeader("DDL-Log-Complete", "1");
    return response;
}

namespace {
// What a search on the search pool hands back (default-constructible, as QFuture wants).
struct SearchOutcome
{
    LogSearchAnswer answer;
    std::optional<Error> error;
};
} // namespace

static QJsonObject searchJson(const LogSearchAnswer &answer, const QString &stream)
{
    QJsonArray matches;
    for (const LogMatch &match : answer.matches) {
        matches.append(QJsonObject{{u"offset"_s, match.offset},
                                   {u"line_start"_s, match.lineStart}});
    }
    return {{u"matches"_s, matches},
            {u"scanned_to"_s, answer.scannedTo},
            {u"size"_s, answer.size},
            {u"done"_s, answer.done},
            {u"stream"_s, stream}};
}

void JobController::searchLogs(const QString &uuid, const QHttpServerRequest &request,
                               QHttpServerResponder &&responder)
{
    auto refuse = [&responder](const Error &error) {
        HttpReply::error(error).write(std::move(responder));
    };
    Result<qint64> user = m_auth.user(request);
    if (!user)
        return refuse(user.error());
    Result<JobRef> job = m_context.jobs.find(*user, uuid);
    if (!job)
        return refuse(job.error());
    Result<qint64> taskId = RequestReader::queryInteger(request, u"task"_s, -1);
    Result<qint64> from = RequestReader::queryInteger(request, u"from"_s, -1);
    if (!taskId || !from)
        return refuse(!taskId ? taskId.error() : from.error());
    Result<LogStream> stream = requestedLogStream(request.query());
    if (!stream)
        return refuse(stream.error());
    // Another job's task is as unknown as a task that does not exist.
    if (Result<QString> state = m_context.outputs.taskState(job->id, *taskId); !state)
        return refuse(state.error());
    const QUrlQuery query = request.query();
    LogSearchSpec spec;
    spec.path = m_context.logs.path(*taskId, *stream);
    spec.text = query.queryItemValue(u"q"_s, QUrl::FullyDecoded).toUtf8();
    spec.from = *from;
    if (spec.text.isEmpty()) {
        return refuse(Error::make(ErrorCode::BadRequest, u"a log search needs ?q=TEXT"_s, u"q"_s));
    }
    if (spec.text.size() > LogSearchSpec::MaxTextBytes) {
        return refuse(Error::make(ErrorCode::BadRequest,
                                  u"the search text may be at most %1 bytes (UTF-8), got %2"_s
                                      .arg(LogSearchSpec::MaxTextBytes)
                                      .arg(spec.text.size()),
                                  u"q"_s));
    }
    const QString direction = query.queryItemValue(u"direction"_s);
    if (!direction.isEmpty() && direction != u"forward"_s && direction != u"backward"_s) {
        return refuse(Error::make(
            ErrorCode::BadRequest,
            u"direction must be forward or backward, not \"%1\""_s.arg(direction.left(64)),
            u"direction"_s));
    }
    spec.backward = direction == u"backward"_s;
    const QString ignoreCase = query.queryItemValue(u"ignore_case"_s);
    spec.ignoreCase = ignoreCase == u"1"_s || ignoreCase == u"true"_s;
    if (Status admitted = m_searchAdmission.admit(*user); !admitted)
        return refuse(admitted.error());
    spec.cancelled = std::make_shared<std::atomic_bool>(false);

    // The scan (up to 64 MiB) runs on a thread of the search pool and touches only the file;
    // the answer is written here, on the server's thread, if the connection is still there.
    // (Not QtHttpServer 6.4's QFuture route, which reads freed memory when the client
    // disconnects before the future is done.) The watcher is a child of the socket:
    // when QtHttpServer deletes a socket whose client went away, the watcher, its connection
    // and with it the responder go too, and nothing is written.
    QTcpSocket *socket = responder.socket();
    // A client that goes away stops its scan at the next block.
    QObject::connect(socket, &QObject::destroyed, [cancelled = spec.cancelled] {
        cancelled->store(true);
    });
    QObject::connect(socket, &QAbstractSocket::disconnected, socket,
                     [cancelled = spec.cancelled] { cancelled->store(true); });
    auto pending = std::make_shared<QHttpServerResponder>(std::move(responder));
    auto *watcher = new QFutureWatcher<SearchOutcome>(socket);
    const QString streamName = logStreamName(*stream);
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher,
                     [watcher, pending, streamName] {
                         watcher->deleteLater();
                         QTcpSocket *socket = pending->socket();
                         if (socket->state() != QAbstractSocket::ConnectedState)
                             return;
                         const SearchOutcome outcome = watcher->result();
                         const QHttpServerResponse response =
                             outcome.error ? HttpReply::error(*outcome.error)
                                           : HttpReply::json(searchJson(outcome.answer, streamName));
                         response.write(std::move(*pending));
                     });
    watcher->setFuture(QtConcurrent::run(&m_searchPool, [this, spec, user = *user] {
        SearchOutcome outcome;
        Result<LogSearchAnswer> answer = searchLog(spec);
        m_searchAdmission.release(user);
        if (answer)
            outcome.answer = std::move(*answer);
        else
            outcome.error = answer.error();
        return outcome;
    }));
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
