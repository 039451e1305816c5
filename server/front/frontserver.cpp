#include "frontserver.h"

#include "frontconnection.h"

#include <QSslSocket>
#include <QTimer>

namespace ddl::server {

FrontServer::FrontServer(const Router &router, QObject *parent)
    : QTcpServer(parent)
    , m_router(router)
{}

void FrontServer::setSslConfiguration(const QSslConfiguration &configuration)
{
    m_ssl = configuration;
}

void FrontServer::incomingConnection(qintptr descriptor)
{
    auto *socket = new QSslSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    socket->setSslConfiguration(m_ssl);
    auto *handshake = new QTimer(socket);
    handshake->setSingleShot(true);
    connect(handshake, &QTimer::timeout, socket, &QSslSocket::abort);
    handshake->start(HandshakeTimeoutMs);
    connect(socket, &QSslSocket::encrypted, this, [this, socket, handshake] {
        delete handshake;
        new FrontConnection(socket, m_router);
    });
    connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
    // Handshake failures (a plain-HTTP client, an old TLS version) end in a disconnect.
    connect(socket, &QSslSocket::sslErrors, socket, &QSslSocket::abort);
    socket->startServerEncryption();
}

} // namespace ddl::server
