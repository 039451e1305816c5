#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include "http/requestauth.h"
#include "jobs/jobservice.h"

#include <memory>

namespace ddl::server {

struct ServerContext;

// Decides, from a request's head, whether the front serves it itself (the data plane: upload
// chunks, blob and artifact downloads, log follow; and register/login, whose password hashing
// runs off the event loop) and with which exchange. Everything else returns null and
// goes to the QtHttpServer routes. Lookups are scoped to the caller as in the routes: what is
// not theirs is "not found".
class DataRouter
{
public:
    explicit DataRouter(ServerContext &context);

    std::unique_ptr<DataExchange> route(const RequestHead &head, QSslSocket *socket);

private:
    // The job uuid names, if it is the caller's (by the head's token); not_found otherwise.
    Result<JobRef> callersJob(const RequestHead &head, const QString &uuid);
    std::unique_ptr<DataExchange> upload(const QString &uploadId, const RequestHead &head,
                                         QSslSocket *socket);
    std::unique_ptr<DataExchange> workerBlob(const QString &sha256, const RequestHead &head,
                                             QSslSocket *socket);
    std::unique_ptr<DataExchange> userBlob(const QString &sha256, const RequestHead &head,
                                           QSslSocket *socket);
    std::unique_ptr<DataExchange> logFollow(const QString &uuid, const RequestHead &head,
                                            QSslSocket *socket);
    std::unique_ptr<DataExchange> artifact(const QString &uuid, const RequestHead &head,
                                           QSslSocket *socket);

    ServerContext &m_context;
    RequestAuth m_auth;
};

} // namespace ddl::server
