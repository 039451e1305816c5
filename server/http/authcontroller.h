#pragma once

#include "front/router.h"

namespace ddl::server {

class AuthService;
class LoginThrottle;
struct LoginCandidate;

// /v1/auth: register, login (throttled against guessing), refresh. The Argon2id work of register
// and login (a tenth of a second or more) runs on a pool thread while the event loop serves
// everyone else; the store is touched before and after it, on the loop.
class AuthController
{
public:
    AuthController(AuthService &auth, LoginThrottle &throttle)
        : m_auth(auth)
        , m_throttle(throttle)
    {}
    void registerRoutes(Router &router);

private:
    HttpReply registerUser(const HttpRequest &request);
    HttpReply login(const HttpRequest &request);
    HttpReply finishLogin(const QString &email, const QString &address,
                          const LoginCandidate &candidate, bool valid);

    AuthService &m_auth;
    LoginThrottle &m_throttle;
};

} // namespace ddl::server
