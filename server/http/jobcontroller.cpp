#include "jobcontroller.h"

#include "front/fileexchange.h"
#include "front/logfollowexchange.h"
#include "jobs/joboutputs.h"
#include "jobs/jobservice.h"
#include "wire/jobstate.h"
#include "logs/logsearch.h"
#include "logs/logstorage.h"
#include "requestreader.h"
#include "wire/jobstate.h"
#include "workers/utilisationservice.h"

#include <QJsonArray>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace ddl::server {

void JobController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/jobs", Access::User, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return HttpReply::from(m_jobs.submit(request.user(), *body), 201);
    });
    router.route("GET", "/v1/jobs", Access::User, [this](const HttpRequest &request) {
        const Result<JobListQuery> query = JobListQuery::fromUrlQuery(request.query());
        if (!query)
            return HttpReply::error(query.error());
        return HttpReply::from(m_jobs.list(request.user(), *query));
    });
    router.route("GET", "/v1/jobs/<arg>", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_jobs.get(request.user(), request.arg(0)));
    });
    router.route("POST", "/v1/jobs/<arg>/cancel", Access::User,
                 [this](const HttpRequest &request) {
                     return HttpReply::from(m_jobs.cancel(request.user(), request.arg(0)));
                 });
    // The Paddle client's routes where they mean the same (docs/cli.md): its "submit a trainer
    // job" is a submission, and its DELETE of a job cancels it (DDL keeps the stopped job).
    router.route("POST", "/v1/trainer/job", Access::User, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return HttpReply::from(m_jobs.submit(request.user(), *body), 201);
    });
    router.route("DELETE", "/v1/jobs/<arg>", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_jobs.cancel(request.user(), request.arg(0)));
    });
    router.route("GET", "/v1/jobs/<arg>/logs", Access::User,
                 [this](const HttpRequest &request, QSslSocket *socket) {
                     return logs(request, socket);
                 });
    router.route("GET", "/v1/jobs/<arg>/logs/search", Access::User,
                 [this](const HttpRequest &request) { return searchLogs(request); });
    router.route("GET", "/v1/jobs/<arg>/utilisation", Access::User,
                 [this](const HttpRequest &request) { return utilisation(request); });
    router.route("GET", "/v1/jobs/<arg>/artifacts", Access::User,
                 [this](const HttpRequest &request) { return artifacts(request); });
    for (const QByteArray method : {"GET", "HEAD"}) {
        router.route(method, "/v1/jobs/<arg>/artifacts/file", Access::User,
                     [this](const HttpRequest &request, QSslSocket *socket) {
                         return artifactFile(request, socket);
                     });
    }
}

Exchange JobController::logs(const HttpRequest &request, QSslSocket *socket)
{
    Result<JobRef> job = m_jobs.find(request.user(), request.arg(0));
    if (!job)
        return job.error();
    Result<qint64> taskId = RequestReader::queryInteger(request, QStringLiteral("task"), -1);
    Result<qint64> offset = RequestReader::queryInteger(request, QStringLiteral("offset"), 0);
    Result<qint64> limit = RequestReader::queryInteger(request, QStringLiteral("limit"),
                                                       LogStorage::MaxReadBytes);
    if (!taskId || !offset || !limit)
        return !taskId ? taskId.error() : !offset ? offset.error() : limit.error();
    Result<LogStream> stream = requestedLogStream(request.query());
    if (!stream)
        return stream.error();
    // Another job's task is as unknown as a task that does not exist.
    Result<QString> state = m_outputs.taskState(job->id, *taskId);
    if (!state)
        return state.error();
    // follow=1 streams the log as it grows; otherwise one window of it is answered.
    if (request.query().queryItemValue(QStringLiteral("follow")) == QLatin1String("1")) {
        return Exchange(std::make_unique<LogFollowExchange>(socket, m_logs, m_outputs, job->id,
                                                            *taskId, *offset, request.head()));
    }
    // tail=N starts N bytes before the end, so a client wanting the last lines reads only those.
    Result<qint64> tail = RequestReader::queryInteger(request, QStringLiteral("tail"), -1);
    if (!tail)
        return tail.error();
    const qint64 from = *tail >= 0 ? std::max<qint64>(0, m_logs.size(*taskId, *stream) - *tail)
                                   : *offset;
    Result<LogSlice> slice = m_logs.read(*taskId, from, *limit, *stream);
    if (!slice)
        return slice.error();
    const qint64 next = slice->offset + slice->bytes.size();
    HttpReply response("text/plain; charset=utf-8", std::move(slice->bytes));
    response.setHeader("DDL-Log-Offset", QByteArray::number(slice->offset));
    response.setHeader("DDL-Next-Offset", QByteArray::number(next));
    response.setHeader("DDL-Log-Size", QByteArray::number(slice->size));
    response.setHeader("DDL-Log-Stream", logStreamName(*stream).toLatin1());
    response.setHeader("DDL-Task-State", state->toLatin1());
    if (isFinalState(*state) && next >= slice->size)
        response.setHeader("DDL-Log-Complete", "1");
    return Exchange(std::make_unique<ImmediateReply>(socket, response, request.head()));
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

HttpReply JobController::searchLogs(const HttpRequest &request)
{
    const qint64 user = request.user();
    Result<JobRef> job = m_jobs.find(user, request.arg(0));
    if (!job)
        return HttpReply::error(job.error());
    Result<qint64> taskId = RequestReader::queryInteger(request, u"task"_s, -1);
    Result<qint64> from = RequestReader::queryInteger(request, u"from"_s, -1);
    if (!taskId || !from)
        return HttpReply::error(!taskId ? taskId.error() : from.error());
    Result<LogStream> stream = requestedLogStream(request.query());
    if (!stream)
        return HttpReply::error(stream.error());
    // Another job's task is as unknown as a task that does not exist.
    if (Result<QString> state = m_outputs.taskState(job->id, *taskId); !state)
        return HttpReply::error(state.error());
    const QUrlQuery query = request.query();
    LogSearchSpec spec;
    spec.path = m_logs.path(*taskId, *stream);
    spec.text = query.queryItemValue(u"q"_s, QUrl::FullyDecoded).toUtf8();
    spec.from = *from;
    if (spec.text.isEmpty())
        return HttpReply::error(Error::make(ErrorCode::BadRequest, u"a log search needs ?q=TEXT"_s, u"q"_s));
    if (spec.text.size() > LogSearchSpec::MaxTextBytes) {
        return HttpReply::error(
            Error::make(ErrorCode::BadRequest,
                        u"the search text may be at most %1 bytes (UTF-8), got %2"_s
                            .arg(LogSearchSpec::MaxTextBytes)
                            .arg(spec.text.size()),
                        u"q"_s));
    }
    const QString direction = query.queryItemValue(u"direction"_s);
    if (!direction.isEmpty() && direction != u"forward"_s && direction != u"backward"_s) {
        return HttpReply::error(
            Error::make(ErrorCode::BadRequest,
                        u"direction must be forward or backward, not \"%1\""_s.arg(
                            direction.left(64)),
                        u"direction"_s));
    }
    spec.backward = direction == u"backward"_s;
    const QString ignoreCase = query.queryItemValue(u"ignore_case"_s);
    spec.ignoreCase = ignoreCase == u"1"_s || ignoreCase == u"true"_s;
    if (Status admitted = m_searchAdmission.admit(user); !admitted)
        return HttpReply::error(admitted.error());
    // A client that goes away stops its scan at the next block.
    spec.cancelled = request.abandoned();

    // The scan (up to 64 MiB) runs on a thread of the search pool and touches only the file.
    const QString streamName = logStreamName(*stream);
    return HttpReply::later(
        QtConcurrent::run(&m_searchPool, [this, spec, user, streamName]() -> HttpReply::Finish {
            Result<LogSearchAnswer> answer = searchLog(spec);
            m_searchAdmission.release(user);
            const HttpReply reply = answer ? HttpReply::json(searchJson(*answer, streamName))
                                           : HttpReply::error(answer.error());
            return [reply] { return reply; };
        }));
}

HttpReply JobController::artifacts(const HttpRequest &request)
{
    Result<JobRef> job = m_jobs.find(request.user(), request.arg(0));
    if (!job)
        return HttpReply::error(job.error());
    Result<QList<ArtifactEntry>> entries = m_outputs.artifacts(job->id);
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

HttpReply JobController::utilisation(const HttpRequest &request)
{
    Result<JobRef> job = m_jobs.find(request.user(), request.arg(0));
    if (!job)
        return HttpReply::error(job.error());
    Result<qint64> attempt = RequestReader::queryInteger(request, QStringLiteral("attempt"), 0);
    if (!attempt || *attempt < 0) {
        return HttpReply::error(Error::make(ErrorCode::BadRequest,
                                            QStringLiteral("attempt must be a number >= 1, or left out "
                                                           "for the current attempt"),
                                            QStringLiteral("attempt")));
    }
    return HttpReply::from(m_utilisation.forJob(
        job->id, *attempt > 0 ? std::optional<int>(int(*attempt)) : std::nullopt));
}

Exchange JobController::artifactFile(const HttpRequest &request, QSslSocket *socket)
{
    Result<JobRef> job = m_jobs.find(request.user(), request.arg(0));
    if (!job)
        return job.error();
    Result<ArtifactEntry> entry = m_outputs.artifact(
        job->id, request.query().queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded));
    if (!entry)
        return entry.error();
    const std::optional<BlobLocation> location = m_blobs.locate(entry->sha256);
    if (!location) {
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("artifact %1's blob %2 is missing from the server's "
                                          "storage")
                               .arg(entry->path, entry->sha256));
    }
    auto exchange = std::make_unique<FileExchange>(socket, location->path, request.head(),
                                                   entry->sha256.toLatin1());
    exchange->setWindow(location->offset, location->length);
    return Exchange(std::move(exchange));
}

} // namespace ddl::server
