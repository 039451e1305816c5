#pragma once

#include "app/servercontext.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/auth: register, login (throttled against guessing), refresh. Register and login are
// normally answered by the connection front (server/front/authexchange), which hashes off the
// event loop; these routes serve them when they arrive on a connection QtHttpServer already has.
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
