#include "checkpointcontroller.h"

#include "jobs/checkpointservice.h"
#include "requestreader.h"

namespace ddl::server {

void CheckpointController::registerRoutes(Router &router)
{
    router.route("POST",
                 "/v1/workers/tasks/<arg>/checkpoint",
                 Access::Worker,
                 [this](const HttpRequest &request) {
                     bool ok = false;
                     const qint64 taskId = request.arg(0).toLongLong(&ok);
                     if (!ok) {
                         return HttpReply::error(
                             Error::make(ErrorCode::BadRequest,
                                         QStringLiteral("task id must be a number"),
                                         QStringLiteral("task_id")));
                     }
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     return HttpReply::from(m_checkpoints.record(request.worker(), taskId, *body));
                 });
}

} // namespace ddl::server
