#pragma once

#include "dataexchange.h"

#include <QObject>
#include <QSslSocket>
#include <QTimer>

#include <memory>

namespace ddl::server {

class Router;

// One TLS connection, for its whole life. It reads each request's head (peeking until it is
// whole), has the router pick the exchange that serves the request, and reads the next head
// when that exchange is done: control and data requests alike, one after another.
class FrontConnection : public QObject
{
    Q_OBJECT
public:
    // Checked before anything is buffered (control bodies: ControlExchange::MaxBodyBytes).
    static constexpr qsizetype MaxHeadBytes = 32 * 1024;
    static constexpr qint64 ReadBufferBytes = 256 * 1024;
    static constexpr int IdleTimeoutMs = 60'000;

    FrontConnection(QSslSocket *socket, const Router &router);

private:
    void onReadyRead();
    void onWritten();
    void readHead();
    void handle(DataExchange::Step step);
    void refuse(const Error &error);
    void close();

    QSslSocket *m_socket;
    const Router &m_router;
    std::unique_ptr<DataExchange> m_exchange;
    QTimer m_idle;
    bool m_closing = false;
};

} // namespace ddl::server
