#include "frontconnection.h"

#include "datarouter.h"
#include "frontserver.h"
#include "requesthead.h"

namespace ddl::server {

FrontConnection::FrontConnection(QSslSocket *socket, DataRouter &router, FrontServer &server)
    : QObject(socket)
    , m_socket(socket)
    , m_router(router)
    , m_server(server)
{
    // Bounded: a client sending faster than the disk takes is slowed by TCP, not by our memory.
    m_socket->setReadBufferSize(ReadBufferBytes);
    connect(m_socket, &QSslSocket::readyRead, this, &FrontConnection::onReadyRead);
    connect(m_socket, &QSslSocket::bytesWritten, this, &FrontConnection::onWritten);
    connect(m_socket, &QSslSocket::encryptedBytesWritten, this, &FrontConnection::onWritten);
    connect(m_socket, &QSslSocket::disconnected, m_socket, &QObject::deleteLater);
    m_idle.setSingleShot(true);
    m_idle.setInterval(IdleTimeoutMs);
    // A client that stops mid-head or mid-body is dropped instead of holding the connection.
    connect(&m_idle, &QTimer::timeout, m_socket, &QSslSocket::abort);
    m_idle.start();
    if (m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &FrontConnection::onReadyRead, Qt::QueuedConnection);
}

void FrontConnection::onReadyRead()
{
    if (m_closing)
        return;
    m_idle.start();
    if (m_exchange)
        handle(m_exchange->onReadable());
    else
        readHead();
}

void FrontConnection::onWritten()
{
    m_idle.start();
    if (m_exchange && !m_closing)
        handle(m_exchange->onWritten());
}

void FrontConnection::refuse(const Error &error)
{
    m_exchange = ImmediateReply::error(m_socket, error, false);
    handle(m_exchange->start());
}

void FrontConnection::readHead()
{
    RequestHead head;
    const QByteArray peeked = m_socket->peek(MaxHeadBytes);
    switch (parseRequestHead(peeked, MaxHeadBytes, &head)) {
    case HeadStatus::Incomplete:
        return;
    case HeadStatus::TooLarge:
        return refuse(
            Error::make(ErrorCode::HeadersTooLarge,
                        QStringLiteral("the request's headers pass %1 bytes").arg(MaxHeadBytes)));
    case HeadStatus::Malformed:
        return refuse(Error::make(ErrorCode::BadRequest,
                                  QStringLiteral("the request is not well-formed HTTP/1.1")));
    case HeadStatus::Complete:
        break;
    }
    if (std::unique_ptr<DataExchange> exchange = m_router.route(head, m_socket)) {
        m_socket->skip(head.size);
        m_exchange = std::move(exchange);
        m_exchange->resume = [this](DataExchange::Step step) {
            if (!m_closing)
                handle(step);
        };
        return handle(m_exchange->start());
    }
    if (Status fits = checkWholeBody(head, MaxControlBodyBytes, BodyRule::Optional); !fits)
        return refuse(fits.error());
    handOver();
}

void FrontConnection::handle(DataExchange::Step step)
{
    if (step == DataExchange::Step::Continue)
        return;
    m_exchange.reset();
    if (step == DataExchange::Step::DoneClose) {
        close();
        return;
    }
    if (m_socket->bytesAvailable() > 0)
        readHead();
}

void FrontConnection::close()
{
    m_closing = true;
    // Flushes what is queued, then closes; the socket deletes itself (and this) when done.
    m_socket->disconnectFromHost();
}

void FrontConnection::handOver()
{
    m_idle.stop();
    disconnect(m_socket, nullptr, this, nullptr);
    // QtHttpServer reads whole bodies; it gets the socket as QSslServer would give it.
    m_socket->setReadBufferSize(0);
    setParent(nullptr);
    m_server.handOver(m_socket);
    deleteLater();
}

} // namespace ddl::server
