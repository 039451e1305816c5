#include "imagecontroller.h"

#include "images/imageservice.h"
#include "requestreader.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

void ImageController::registerRoutes(Router &router)
{
    router.route("POST", "/v1/images", Access::User, [this](const HttpRequest &request) {
        Result<QJsonObject> body = RequestReader::jsonBody(request);
        if (!body)
            return HttpReply::error(body.error());
        return HttpReply::from(m_images.create(request.user(),
                                               body->value(u"name"_s).toString(),
                                               body->value(u"manifest_sha256"_s).toString()),
                               201);
    });
    router.route("GET", "/v1/images", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_images.list(request.user()));
    });
    router.route("DELETE", "/v1/images/<arg>", Access::User, [this](const HttpRequest &request) {
        return HttpReply::from(m_images.remove(request.user(), request.arg(0)));
    });
}

} // namespace ddl::server
