#include "requestauth.h"

#include "auth/authservice.h"
#include "blobs/uploadservice.h"
#include "requestreader.h"
#include "workers/workerservice.h"

namespace ddl::server {

Result<Caller> RequestAuth::authenticate(Access access, const RequestHead &head) const
{
    if (access == Access::Anyone)
        return Caller();
    const QString token = RequestReader::parseBearerToken(head.header("authorization"));
    if (token.isEmpty()) {
        return Error::make(ErrorCode::Unauthorized,
                           QStringLiteral("this request needs an Authorization: Bearer token; log "
                                          "in first"));
    }
    if (access == Access::User)
        return user(token);
    if (access == Access::Worker)
        return worker(token);
    return token.startsWith(QLatin1String("ddlw_")) ? worker(token) : user(token);
}

Result<Caller> RequestAuth::user(const QString &token) const
{
    Result<qint64> userId = m_auth.userForAccessToken(token);
    if (!userId)
        return userId.error();
    Caller caller;
    caller.userId = *userId;
    caller.uploadOwner = UploadService::userOwner(*userId);
    return caller;
}

Result<Caller> RequestAuth::worker(const QString &token) const
{
    Result<WorkerRef> worker = m_workers.authenticate(token);
    if (!worker)
        return worker.error();
    Caller caller;
    caller.worker = *worker;
    caller.uploadOwner = UploadService::workerOwner(worker->id);
    return caller;
}

} // namespace ddl::server
