#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include "auth/authservice.h"

#include <QFutureWatcher>
#include <QHostAddress>

namespace ddl::server {

struct ServerContext;

// POST /v1/auth/register and /v1/auth/login, answered by the front so that the password's
// Argon2id work (a tenth of a second or more) runs on a pool thread: the event loop reads the
// body, checks (and throttles), hands the hashing to the pool, and answers when it is done, or
// drops the answer if the client left meanwhile. Same bodies and answers as the routes.
class AuthExchange : public DataExchange
{
public:
    static constexpr qint64 MaxBodyBytes = 64 * 1024;

    AuthExchange(QSslSocket *socket, ServerContext &context, const RequestHead &head);

    Step start() override;
    Step onReadable() override;

private:
    Step fail(const Error &error);
    Step handleBody();
    Step finishRegister(const QString &email, const QString &hash);
    Step finishLogin(const QString &email, const LoginCandidate &candidate, bool valid);
    Step done() const { return m_head.keepAlive ? Step::Done : Step::DoneClose; }

    ServerContext &m_context;
    RequestHead m_head;
    QHostAddress m_peer;
    QByteArray m_body;
    QFutureWatcher<QString> m_hashing;
    QFutureWatcher<bool> m_verifying;
};

} // namespace ddl::server
