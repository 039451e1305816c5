#include "datarouter.h"

#include "authexchange.h"
#include "fileexchange.h"
#include "logfollowexchange.h"
#include "uploadexchange.h"

#include "app/servercontext.h"
#include "core/sha256.h"
#include "http/requestreader.h"

namespace ddl::server {

DataRouter::DataRouter(ServerContext &context)
    : m_context(context)
    , m_auth(context)
{}

// "/v1/uploads/<id>" with prefix "/v1/uploads/" gives "<id>"; nothing when more segments follow.
static std::optional<QString> segmentAfter(const QByteArray &path, QByteArrayView prefix,
                                           QByteArrayView suffix = {})
{
    if (!path.startsWith(prefix) || !path.endsWith(suffix))
        return std::nullopt;
    const QByteArray middle = path.mid(prefix.size(), path.size() - prefix.size() - suffix.size());
    if (middle.isEmpty() || middle.contains('/'))
        return std::nullopt;
    return QString::fromUtf8(QByteArray::fromPercentEncoding(middle));
}

static QString tokenOf(const RequestHead &head)
{
    return RequestReader::parseBearerToken(head.header("authorization"));
}

static bool hasBody(const RequestHead &head)
{
    return head.chunked || head.contentLength > 0;
}

std::unique_ptr<DataExchange> DataRouter::route(const RequestHead &head, QSslSocket *socket)
{
    const bool get = head.method == "GET" || head.method == "HEAD";
    // Password hashing must not hold the event loop: these two are answered here as well.
    if (head.method == "POST" && (head.path == "/v1/auth/login" || head.path == "/v1/auth/register"))
        return std::make_unique<AuthExchange>(socket, m_context, head);
    if (const auto id = segmentAfter(head.path, "/v1/uploads/")) {
        if (head.method == "PUT" || head.method == "HEAD")
            return upload(*id, head, socket);
        return nullptr;
    }
    if (!get)
        return nullptr;
    if (const auto sha = segmentAfter(head.path, "/v1/workers/blobs/"))
        return workerBlob(*sha, head, socket);
    if (const auto sha = segmentAfter(head.path, "/v1/blobs/"))
        return userBlob(*sha, head, socket);
    if (const auto uuid = segmentAfter(head.path, "/v1/jobs/", "/artifacts/file"))
        return artifact(*uuid, head, socket);
    if (const auto uuid = segmentAfter(head.path, "/v1/jobs/", "/logs");
        uuid && head.query.queryItemValue(QStringLiteral("follow")) == QLatin1String("1")) {
        return logFollow(*uuid, head, socket);
    }
    return nullptr;
}

std::unique_ptr<DataExchange> DataRouter::upload(const QString &uploadId, const RequestHead &head,
                                                 QSslSocket *socket)
{
    const bool keepAlive = head.keepAlive && !hasBody(head);
    Result<QString> owner = m_auth.uploadOwnerForToken(tokenOf(head));
    if (!owner)
        return ImmediateReply::error(socket, owner.error(), keepAlive);
    if (head.method == "HEAD") {
        // tus-style: where the upload stands, in headers only.
        Result<UploadState> state = m_context.uploads.state(*owner, uploadId);
        if (!state)
            return ImmediateReply::error(socket, state.error(), keepAlive);
        return std::make_unique<ImmediateReply>(
            socket,
            FrontReply::head(200,
                             {{"Upload-Offset", QByteArray::number(state->offset)},
                              {"Upload-Length", QByteArray::number(state->size)},
                              {"Cache-Control", "no-store"}},
                             0, keepAlive),
            keepAlive);
    }
    return std::make_unique<UploadExchange>(socket, m_context.uploads, *owner, uploadId, head);
}

static Error noBlob(const QString &sha256, const QString &whose)
{
    return Error::make(ErrorCode::NotFound,
                       QStringLiteral("no blob %1 %2").arg(sha256.left(64), whose),
                       QStringLiteral("sha256"));
}

std::unique_ptr<DataExchange> DataRouter::workerBlob(const QString &sha256,
                                                     const RequestHead &head, QSslSocket *socket)
{
    const bool keepAlive = head.keepAlive && !hasBody(head);
    Result<WorkerRef> worker = m_auth.workerForToken(tokenOf(head));
    if (!worker)
        return ImmediateReply::error(socket, worker.error(), keepAlive);
    // Workers read only the code and data of tasks they hold; anything else is not there.
    if (!isSha256Hex(sha256) || !m_context.workers.mayRead(*worker, sha256)
        || !m_context.blobs.hasBlob(sha256)) {
        return ImmediateReply::error(socket, noBlob(sha256, QStringLiteral("for this worker's tasks")),
                                     keepAlive);
    }
    return std::make_unique<FileExchange>(socket, m_context.blobs.blobPath(sha256), head,
                                          sha256.toLatin1());
}

std::unique_ptr<DataExchange> DataRouter::userBlob(const QString &sha256, const RequestHead &head,
                                                   QSslSocket *socket)
{
    const bool keepAlive = head.keepAlive && !hasBody(head);
    Result<qint64> user = m_auth.userForToken(tokenOf(head));
    if (!user)
        return ImmediateReply::error(socket, user.error(), keepAlive);
    // Only blobs the caller uploaded (or was given through its datasets): no digest oracle.
    if (!isSha256Hex(sha256)
        || !m_context.uploads.ownsBlob(UploadService::userOwner(*user), sha256)
        || !m_context.blobs.hasBlob(sha256)) {
        return ImmediateReply::error(socket, noBlob(sha256, QStringLiteral("of yours")), keepAlive);
    }
    return std::make_unique<FileExchange>(socket, m_context.blobs.blobPath(sha256), head,
                                          sha256.toLatin1());
}

Result<JobRef> DataRouter::callersJob(const RequestHead &head, const QString &uuid)
{
    Result<qint64> user = m_auth.userForToken(tokenOf(head));
    if (!user)
        return user.error();
    return m_context.jobs.find(*user, uuid);
}

std::unique_ptr<DataExchange> DataRouter::logFollow(const QString &uuid, const RequestHead &head,
                                                    QSslSocket *socket)
{
    const bool keepAlive = head.keepAlive && !hasBody(head);
    Result<JobRef> job = callersJob(head, uuid);
    if (!job)
        return ImmediateReply::error(socket, job.error(), keepAlive);
    Result<qint64> task = RequestReader::parseInteger(head.query.queryItemValue(QStringLiteral("task")),
                                                      QStringLiteral("task"), -1);
    Result<qint64> offset = RequestReader::parseInteger(
        head.query.queryItemValue(QStringLiteral("offset")), QStringLiteral("offset"), 0);
    if (!task || !offset)
        return ImmediateReply::error(socket, !task ? task.error() : offset.error(), keepAlive);
    // Another job's task is as unknown as a task that does not exist.
    if (Result<QString> state = m_context.outputs.taskState(job->id, *task); !state)
        return ImmediateReply::error(socket, state.error(), keepAlive);
    return std::make_unique<LogFollowExchange>(socket, m_context, job->id, *task, *offset, head);
}

std::unique_ptr<DataExchange> DataRouter::artifact(const QString &uuid, const RequestHead &head,
                                                   QSslSocket *socket)
{
    const bool keepAlive = head.keepAlive && !hasBody(head);
    Result<JobRef> job = callersJob(head, uuid);
    if (!job)
        return ImmediateReply::error(socket, job.error(), keepAlive);
    Result<ArtifactEntry> entry = m_context.outputs.artifact(
        job->id, head.query.queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded));
    if (!entry)
        return ImmediateReply::error(socket, entry.error(), keepAlive);
    return std::make_unique<FileExchange>(socket, m_context.blobs.blobPath(entry->sha256), head,
                                          entry->sha256.toLatin1());
}

} // namespace ddl::server
