#include "requestauth.h"

#include "requestreader.h"

namespace ddl::server {

static Error missingToken()
{
    return Error::make(ErrorCode::Unauthorized,
                       QStringLiteral("this request needs an Authorization: Bearer token; log in "
                                      "first"));
}

Result<qint64> RequestAuth::user(const QHttpServerRequest &request) const
{
    return userForToken(RequestReader::bearerToken(request));
}

Result<WorkerRef> RequestAuth::worker(const QHttpServerRequest &request) const
{
    return workerForToken(RequestReader::bearerToken(request));
}

Result<QString> RequestAuth::uploadOwner(const QHttpServerRequest &request) const
{
    return uploadOwnerForToken(RequestReader::bearerToken(request));
}

Result<qint64> RequestAuth::userForToken(const QString &token) const
{
    if (token.isEmpty())
        return missingToken();
    return m_context.auth.userForAccessToken(token);
}

Result<WorkerRef> RequestAuth::workerForToken(const QString &token) const
{
    if (token.isEmpty())
        return missingToken();
    return m_context.workers.authenticate(token);
}

Result<QString> RequestAuth::uploadOwnerForToken(const QString &token) const
{
    if (token.startsWith(QLatin1String("ddlw_"))) {
        Result<WorkerRef> worker = workerForToken(token);
        if (!worker)
            return worker.error();
        return QString(QStringLiteral("worker:") + QString::number(worker->id));
    }
    Result<qint64> userId = userForToken(token);
    if (!userId)
        return userId.error();
    return UploadService::userOwner(*userId);
}

} // namespace ddl::server
