#pragma once

#include "dataexchange.h"

#include <QObject>
#include <QSslSocket>
#include <QTimer>

#include <memory>

namespace ddl::server {

class DataRouter;
class FrontServer;

// One TLS connection while the front owns it. It reads each request's head without consuming
// it (peek); a data-plane request is served here by a DataExchange, request after request on
// the same connection; the first control-plane request hands the connection, unread bytes and
// all, to QtHttpServer for good.
class FrontConnection : public QObject
{
    Q_OBJECT
public:
    // Limits checked before anything is buffered: the head, and a control-plane body (which
    // QtHttpServer would hold whole in memory).
    static constexpr qsizetype MaxHeadBytes = 32 * 1024;
    static constexpr qint64 MaxControlBodyBytes = 16LL << 20;
    static constexpr qint64 ReadBufferBytes = 256 * 1024;
    static constexpr int IdleTimeoutMs = 60'000;

    FrontConnection(QSslSocket *socket, DataRouter &router, FrontServer &server);

private:
    void onReadyRead();
    void onWritten();
    void readHead();
    void handle(DataExchange::Step step);
    void refuse(const Error &error);
    void handOver();
    void close();

    QSslSocket *m_socket;
    DataRouter &m_router;
    FrontServer &m_server;
    std::unique_ptr<DataExchange> m_exchange;
    QTimer m_idle;
    bool m_closing = false;
};

} // namespace ddl::server
