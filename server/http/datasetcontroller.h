#pragma once

#include "http/requestauth.h"

#include <QHttpServer>

namespace ddl::server {

// /v1/datasets (named dataset manifests of a user) and /v1/blobs/missing (which blobs a client
// still has to send).
class DatasetController
{
public:
    explicit DatasetController(ServerContext &context)
        : m_context(context)
        , m_auth(context)
    {}
    void registerRoutes(QHttpServer &server);

private:
    ServerContext &m_context;
    RequestAuth m_auth;
};

} // namespace ddl::server
