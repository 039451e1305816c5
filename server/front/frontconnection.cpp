#include "frontconnection.h"

#include "requesthead.h"
#include "router.h"

namespace ddl::server {

FrontConnection::FrontConnection(QSslSocket *socket, const Router &router)
    : QObject(socket)
    , m_socket(socket)
    , m_router(router)
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
    m_exchange = std::make_unique<ImmediateReply>(m_socket, HttpReply::error(error), false);
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
    m_socket->skip(head.size);
    m_exchange = m_router.exchangeFor(head, m_socket);
    m_exchange->resume = [this](DataExchange::Step step) {
        if (!m_closing)
            handle(step);
    };
    handle(m_exchange->start());
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

} // namespace ddl::server
