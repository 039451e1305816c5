#include "datasetcontroller.h"

#include "datasets/datasetservice.h"
#include "requestreader.h"

#include <QJsonArray>

namespace ddl::server {

void DatasetController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/blobs/missing", Access::UserOrWorker,
                 [this](const HttpRequest &request) {
                     Result<QJsonObject> body = RequestReader::jsonBody(request);
                     if (!body)
                         return HttpReply::error(body.error());
                     QStringList digests;
                     for (const QJsonValue &value : body->value(QStringLiteral("sha256")).toArray())
                         digests << value.toString();
                     Result<QStringList> missing = m_datasets.missing(request.uploadOwner(),
                                                                      digests);
                     if (!missing)
                         return HttpReply::error(missing.error());
                     return HttpReply::json(
                         {{QStringLiteral("missing"), QJsonArray::fromStringList(*missing)}});
                 });
    router.route("POST", "/v1/datasets", Access::User, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return HttpReply::from(
            m_datasets.create(request.user(), body->value(QStringLiteral("name")).toString(),
                              body->value(QStringLiteral("manifest_sha256")).toString()),
            201);
    });
    router.route("GET", "/v1/datasets", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_datasets.list(request.user()));
    });
    router.route("GET", "/v1/datasets/<arg>", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_datasets.get(request.user(), request.arg(0)));
    });
    router.route("DELETE", "/v1/datasets/<arg>", Access::User,
                 [this](const HttpRequest &request) {
                     return HttpReply::from(m_datasets.remove(request.user(), request.arg(0)));
                 });
}

} // namespace ddl::server
