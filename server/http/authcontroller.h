#pragma once

#include "app/servercontext.h"
#include "auth/loginthrottle.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/auth: register, login (throttled against guessing), refresh.
class AuthController
{
public:
    explicit AuthController(ServerContext &context)
        : m_context(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    ServerContext &m_context;
    LoginThrottle m_throttle;
};

} // namespace ddl::server
