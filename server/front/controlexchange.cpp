#include "controlexchange.h"

namespace ddl::server {

ControlExchange::ControlExchange(QSslSocket *socket,
                                 Router::ControlHandler handler,
                                 Access access,
                                 HttpRequest request,
                                 const RequestAuth &auth)
    : DataExchange(socket)
    , m_handler(std::move(handler))
    , m_access(access)
    , m_request(std::move(request))
    , m_auth(auth)
{
}

ControlExchange::~ControlExchange()
{
    if (m_later.isRunning())
        m_request.abandoned()->store(true);
}

DataExchange::Step ControlExchange::start()
{
    const RequestHead &head = m_request.head();
    if (Status fits = checkWholeBody(head, MaxBodyBytes); !fits) {
        // The body is left unread, so the connection cannot go on.
        write(HttpReply::error(fits.error()), false);
        return Step::DoneClose;
    }
    if (head.expectContinue && head.contentLength > 0)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return onReadable();
}

DataExchange::Step ControlExchange::onReadable()
{
    if (m_answering)
        return Step::Continue; // a later reply; the next request waits in the socket
    const qint64 length = std::max<qint64>(m_request.head().contentLength, 0);
    if (m_body.size() < length) {
        // Read in place, into room for the whole body (within MaxBodyBytes, checked at start;
        // pages are only touched as bytes arrive): a 16 MiB batch of blobs is not copied again
        // at every doubling of the buffer.
        if (m_body.capacity() < length)
            m_body.reserve(length);
        const qsizetype at = m_body.size();
        m_body.resize(length);
        const qint64 n = m_socket->read(m_body.data() + at, length - at);
        m_body.resize(at + std::max<qint64>(n, 0));
    }
    if (m_body.size() < length)
        return Step::Continue;
    m_answering = true;
    return answer();
}

DataExchange::Step ControlExchange::answer()
{
    m_request.setBody(std::move(m_body));
    Result<Caller> caller = m_auth.authenticate(m_access, m_request.head());
    if (!caller)
        return send(HttpReply::error(caller.error()));
    m_request.setCaller(*caller);
    const HttpReply reply = m_handler(m_request);
    if (std::optional<QFuture<HttpReply::Finish>> work = reply.pending()) {
        QObject::connect(&m_later, &QFutureWatcherBase::finished, &m_later, [this] {
            step(send(m_later.result()()));
        });
        m_later.setFuture(*work);
        return Step::Continue;
    }
    return send(reply);
}

DataExchange::Step ControlExchange::send(const HttpReply &reply)
{
    const bool keepAlive = m_request.head().keepAlive;
    write(reply, keepAlive, m_request.head().method != "HEAD");
    return keepAlive ? Step::Done : Step::DoneClose;
}

} // namespace ddl::server
