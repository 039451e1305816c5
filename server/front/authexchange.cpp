#include "authexchange.h"

#include "app/servercontext.h"
#include "auth/passwordhasher.h"
#include "http/requestreader.h"
#include "store/sql.h"

#include <QtConcurrent>

namespace ddl::server {

AuthExchange::AuthExchange(QSslSocket *socket, ServerContext &context, const RequestHead &head)
    : DataExchange(socket)
    , m_context(context)
    , m_head(head)
    , m_peer(socket->peerAddress())
{}

DataExchange::Step AuthExchange::fail(const Error &error)
{
    FrontReply::error(m_socket, error, m_head.keepAlive);
    return done();
}

DataExchange::Step AuthExchange::start()
{
    if (Status fits = checkWholeBody(m_head, MaxBodyBytes, BodyRule::Required); !fits) {
        // The body is left unread, so the connection cannot go on.
        FrontReply::error(m_socket, fits.error(), false);
        return Step::DoneClose;
    }
    return onReadable();
}

DataExchange::Step AuthExchange::onReadable()
{
    if (m_body.size() < m_head.contentLength) {
        m_body += m_socket->read(m_head.contentLength - m_body.size());
        if (m_body.size() < m_head.contentLength)
            return Step::Continue;
        return handleBody();
    }
    return Step::Continue; // hashing; the next request waits in the socket
}

DataExchange::Step AuthExchange::handleBody()
{
    Result<QJsonObject> body = RequestReader::parseJsonObject(m_body);
    if (!body)
        return fail(body.error());
    const QString email = body->value(QStringLiteral("email")).toString().trimmed();
    const QString password = body->value(QStringLiteral("password")).toString();

    if (m_head.path == "/v1/auth/register") {
        if (Status checked = m_context.auth.checkRegistration(email, password); !checked)
            return fail(checked.error());
        QObject::connect(&m_hashing, &QFutureWatcher<QString>::finished, &m_hashing,
                         [this, email] { step(finishRegister(email, m_hashing.result())); });
        m_hashing.setFuture(QtConcurrent::run([password] { return PasswordHasher::hash(password); }));
        return Step::Continue;
    }

    const QString address = m_peer.toString();
    if (Status allowed = m_context.throttle.check(email, address, nowMs()); !allowed)
        return fail(allowed.error());
    Result<LoginCandidate> candidate = m_context.auth.findLogin(email);
    if (!candidate)
        return fail(candidate.error());
    const LoginCandidate found = *candidate;
    QObject::connect(&m_verifying, &QFutureWatcher<bool>::finished, &m_verifying,
                     [this, email, found] {
                         step(finishLogin(email, found, m_verifying.result()));
                     });
    m_verifying.setFuture(QtConcurrent::run([password, hash = found.storedHash] {
        return PasswordHasher::verify(password, hash);
    }));
    return Step::Continue;
}

DataExchange::Step AuthExchange::finishRegister(const QString &email, const QString &hash)
{
    if (Status inserted = m_context.auth.insertUser(email, hash); !inserted)
        return fail(inserted.error());
    FrontReply::json(m_socket, 201, {{QStringLiteral("email"), email}}, m_head.keepAlive);
    return done();
}

DataExchange::Step AuthExchange::finishLogin(const QString &email,
                                             const LoginCandidate &candidate, bool valid)
{
    const QString address = m_peer.toString();
    Result<SessionTokens> tokens = m_context.auth.finishLogin(candidate, valid);
    if (!tokens) {
        if (tokens.error().is(ErrorCode::Unauthorized))
            m_context.throttle.recordFailure(email, address, nowMs());
        return fail(tokens.error());
    }
    m_context.throttle.recordSuccess(email);
    FrontReply::json(m_socket, 200, tokens->toJson(), m_head.keepAlive);
    return done();
}

} // namespace ddl::server
