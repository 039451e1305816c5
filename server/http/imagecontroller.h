#pragma once

#include "front/router.h"

namespace ddl::server {

class ImageService;

// /v1/images: a user's images pushed to DDL, named by jobs as ddl://NAME.
class ImageController
{
public:
    explicit ImageController(ImageService &images)
        : m_images(images)
    {
    }
    void registerRoutes(Router &router);

private:
    ImageService &m_images;
};

} // namespace ddl::server
