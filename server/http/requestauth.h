#pragma once

#include "httprequest.h"

namespace ddl::server {

class AuthService;
class WorkerService;

// Who may call a route: anyone, a logged-in user (by access token), an enrolled worker (by
// worker token), or either (the upload routes).
enum class Access { Anyone, User, Worker, UserOrWorker };

// Resolves the bearer token of a request to the caller its route's access rule asks for.
// Upload owners are named "user:<id>" / "worker:<id>".
class RequestAuth
{
public:
    RequestAuth(AuthService &auth, WorkerService &workers)
        : m_auth(auth)
        , m_workers(workers)
    {
    }

    // unauthorized (or session_expired) when the token is missing or is not of that kind.
    Result<Caller> authenticate(Access access, const RequestHead &head) const;

private:
    Result<Caller> user(const QString &token) const;
    Result<Caller> worker(const QString &token) const;

    AuthService &m_auth;
    WorkerService &m_workers;
};

} // namespace ddl::server
