#pragma once

#include "front/router.h"

namespace ddl::server {

class UploadService;

// /v1/uploads: the resumable, content-addressed upload protocol, for users and workers. Chunks
// stream from the socket to the disk (UploadExchange).
class UploadController
{
public:
    explicit UploadController(UploadService &uploads)
        : m_uploads(uploads)
    {}
    void registerRoutes(Router &router);

private:
    UploadService &m_uploads;
};

} // namespace ddl::server
