#pragma once

#include "app/servercontext.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/auth: register, login, refresh.
class AuthController
{
public:
    explicit AuthController(ServerContext &context)
        : m_context(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    ServerContext &m_context;
};

} // namespace ddl::server
