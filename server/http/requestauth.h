#pragma once

#include "app/servercontext.h"

#include <QHttpServerRequest>

namespace ddl::server {

// Who sent a request: a logged-in user (by access token) or an enrolled worker (by worker
// token). Upload owners are named "user:<id>" / "worker:<id>".
class RequestAuth
{
public:
    explicit RequestAuth(ServerContext &context)
        : m_context(context)
    {}

    Result<qint64> user(const QHttpServerRequest &request) const;
    Result<WorkerRef> worker(const QHttpServerRequest &request) const;
    // Either kind of caller, as an upload owner.
    Result<QString> uploadOwner(const QHttpServerRequest &request) const;

    // The same from the token alone (the streaming front reads headers itself).
    Result<qint64> userForToken(const QString &token) const;
    Result<WorkerRef> workerForToken(const QString &token) const;
    Result<QString> uploadOwnerForToken(const QString &token) const;

private:
    ServerContext &m_context;
};

} // namespace ddl::server
