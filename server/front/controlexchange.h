#pragma once

#include "router.h"

#include <QFutureWatcher>

namespace ddl::server {

// A request of a control route: the body is read whole (refused from the head when it would
// pass MaxBodyBytes), then the caller is checked and the handler runs. A reply the handler leaves
// to a pool thread (HttpReply::later) is written when that work is done, unless the client left
// meanwhile; the next request waits in the socket until then.
class ControlExchange : public DataExchange
{
public:
    static constexpr qint64 MaxBodyBytes = 16LL << 20;

    ControlExchange(QSslSocket *socket,
                    Router::ControlHandler handler,
                    Access access,
                    HttpRequest request,
                    const RequestAuth &auth);
    ~ControlExchange() override;

    Step start() override;
    Step onReadable() override;

private:
    Step answer();
    Step send(const HttpReply &reply);

    Router::ControlHandler m_handler;
    Access m_access;
    HttpRequest m_request;
    const RequestAuth &m_auth;
    QByteArray m_body;
    bool m_answering = false;
    QFutureWatcher<HttpReply::Finish> m_later;
};

} // namespace ddl::server
