#pragma once

#include <QSslConfiguration>
#include <QTcpServer>

class QSslSocket;

namespace ddl::server {

class Router;

// The one TLS port. It accepts and handshakes each connection itself and gives it to a
// FrontConnection, which serves every request on it through the router.
class FrontServer : public QTcpServer
{
    Q_OBJECT
public:
    static constexpr int HandshakeTimeoutMs = 10'000;

    explicit FrontServer(const Router &router, QObject *parent = nullptr);

    void setSslConfiguration(const QSslConfiguration &configuration);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    const Router &m_router;
    QSslConfiguration m_ssl;
};

} // namespace ddl::server
