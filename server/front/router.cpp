#include "router.h"

#include "controlexchange.h"

namespace ddl::server {

void Router::route(const QByteArray &method,
                   const QByteArray &pattern,
                   Access access,
                   ControlHandler handler)
{
    m_routes.append(Route{method, pattern.split('/'), access, std::move(handler), {}});
}

void Router::route(const QByteArray &method,
                   const QByteArray &pattern,
                   Access access,
                   StreamHandler handler)
{
    m_routes.append(Route{method, pattern.split('/'), access, {}, std::move(handler)});
}

std::optional<QStringList> Router::match(const QByteArrayList &pattern, const QByteArrayList &path)
{
    if (pattern.size() != path.size())
        return std::nullopt;
    QStringList args;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == "<arg>" && !path[i].isEmpty())
            args.append(QString::fromUtf8(QByteArray::fromPercentEncoding(path[i])));
        else if (pattern[i] != path[i])
            return std::nullopt;
    }
    return args;
}

std::unique_ptr<DataExchange> Router::exchangeFor(const RequestHead &head, QSslSocket *socket) const
{
    const QByteArrayList path = head.path.split('/');
    QByteArrayList allowed;
    for (const Route &route : m_routes) {
        std::optional<QStringList> args = match(route.segments, path);
        if (!args)
            continue;
        if (route.method != head.method) {
            if (!allowed.contains(route.method))
                allowed.append(route.method);
            continue;
        }
        HttpRequest request(head, std::move(*args), socket->peerAddress());
        if (route.control) {
            return std::make_unique<ControlExchange>(
                socket, route.control, route.access, std::move(request), m_auth);
        }
        Result<Caller> caller = m_auth.authenticate(route.access, head);
        if (!caller)
            return std::make_unique<ImmediateReply>(socket, HttpReply::error(caller.error()), head);
        request.setCaller(*caller);
        Exchange exchange = route.stream(request, socket);
        if (!exchange)
            return std::make_unique<ImmediateReply>(
                socket, HttpReply::error(exchange.error()), head);
        return std::move(exchange).value();
    }

    const QString method = QString::fromLatin1(head.method);
    const QString target = QString::fromLatin1(head.path);
    HttpReply refusal;
    if (allowed.isEmpty()) {
        refusal = HttpReply::error(Error::make(
            ErrorCode::NotFound,
            QStringLiteral("no such endpoint: %1 %2; see docs/api.md").arg(method, target)));
    } else {
        refusal = HttpReply::error(
            Error::make(ErrorCode::MethodNotAllowed,
                        QStringLiteral("%1 is not allowed on %2; it takes %3 (see docs/api.md)")
                            .arg(method, target, QString::fromLatin1(allowed.join(", ")))));
        refusal.setHeader("Allow", allowed.join(", "));
    }
    // Its body (within the control limit) is read and dropped, so the connection goes on.
    return std::make_unique<ControlExchange>(
        socket,
        [refusal](const HttpRequest &) { return refusal; },
        Access::Anyone,
        HttpRequest(head, {}, socket->peerAddress()),
        m_auth);
}

} // namespace ddl::server
