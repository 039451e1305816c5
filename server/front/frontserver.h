#pragma once

#include <QSslConfiguration>
#include <QTcpServer>

class QSslSocket;

namespace ddl::server {

class DataRouter;

// The one TLS port. It accepts and handshakes each connection itself, lets a FrontConnection
// stream the data plane, and passes the rest to QtHttpServer (bound to this server) as pending
// connections, exactly as QSslServer would.
class FrontServer : public QTcpServer
{
    Q_OBJECT
public:
    static constexpr int HandshakeTimeoutMs = 10'000;

    FrontServer(DataRouter &router, QObject *parent = nullptr);

    void setSslConfiguration(const QSslConfiguration &configuration);
    void handOver(QSslSocket *socket);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    DataRouter &m_router;
    QSslConfiguration m_ssl;
};

} // namespace ddl::server
