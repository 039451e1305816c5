#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include "http/httprequest.h"
#include "http/requestauth.h"

#include <functional>
#include <memory>

namespace ddl::server {

// What a streaming route's handler answers: the exchange that serves the request, or an error
// that the router answers for it.
using Exchange = Result<std::unique_ptr<DataExchange>>;

// The server's one route table, through which the front dispatches every request on every
// connection. A route is a method, a path pattern ("/v1/jobs/<arg>/logs": <arg> is one
// segment), who may call it, and a handler of one of two kinds:
//  - control: the body (a few MiB at most) is read whole, the caller is checked, and the handler
//    returns a reply, at once or later (HttpReply::later);
//  - streaming: the caller is checked from the head, and the handler returns the exchange that
//    reads and writes the rest (upload chunks, file downloads, log follow), or an error.
// A path no route has is 404; a path that routes have with other methods is 405 with Allow.
class Router
{
public:
    using ControlHandler = std::function<HttpReply(const HttpRequest &)>;
    using StreamHandler = std::function<Exchange(const HttpRequest &, QSslSocket *)>;

    explicit Router(const RequestAuth &auth)
        : m_auth(auth)
    {
    }

    // Adds a route; the handler's kind is its signature.
    void route(const QByteArray &method,
               const QByteArray &pattern,
               Access access,
               ControlHandler handler);
    void route(const QByteArray &method,
               const QByteArray &pattern,
               Access access,
               StreamHandler handler);

    // The exchange that answers the request with this head (never null).
    std::unique_ptr<DataExchange> exchangeFor(const RequestHead &head, QSslSocket *socket) const;

private:
    struct Route
    {
        QByteArray method;
        QByteArrayList segments;
        Access access;
        ControlHandler control;
        StreamHandler stream;
    };
    static std::optional<QStringList> match(const QByteArrayList &pattern,
                                            const QByteArrayList &path);

    RequestAuth m_auth;
    QList<Route> m_routes;
};

} // namespace ddl::server
