#pragma once

#include "http/requestauth.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/uploads: the resumable, content-addressed upload protocol, for users and workers.
class UploadController
{
public:
    explicit UploadController(ServerContext &context)
        : m_context(context)
        , m_auth(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    ServerContext &m_context;
    RequestAuth m_auth;
};

} // namespace ddl::server
