#pragma once

#include "http/httpreply.h"

#include <QSslSocket>

#include <functional>
#include <memory>

namespace ddl::server {

struct RequestHead;

// One request the front serves, from its head to its last byte. The connection calls start()
// once and then onReadable()/onWritten() as the socket moves; each says whether the exchange is
// still going or done (and whether the connection may be reused).
class DataExchange
{
public:
    enum class Step { Continue, Done, DoneClose };

    explicit DataExchange(QSslSocket *socket)
        : m_socket(socket)
    {}
    virtual ~DataExchange() = default;

    virtual Step start() = 0;
    virtual Step onReadable() { return Step::Continue; }
    virtual Step onWritten() { return Step::Continue; }

    // Set by the connection: how an exchange reports a step it takes outside the calls above
    // (an upload chunk that waited for the one before it, a reply that was computed later).
    std::function<void(Step)> resume;

protected:
    // Reports a step taken outside the connection's calls; the connection may delete this
    // exchange while handling it, so the function is copied first.
    void step(Step taken)
    {
        std::function<void(Step)> report = resume;
        if (report)
            report(taken);
    }
    void write(const HttpReply &reply, bool keepAlive, bool withBody = true)
    {
        m_socket->write(reply.toBytes(keepAlive, withBody));
    }

    QSslSocket *m_socket;
};

// An answer known from the head alone: an error, or an answer without a body to read. When the
// request came with a body the front will not read, the connection closes after the answer.
class ImmediateReply : public DataExchange
{
public:
    ImmediateReply(QSslSocket *socket, const HttpReply &reply, const RequestHead &head);
    ImmediateReply(QSslSocket *socket, const HttpReply &reply, bool keepAlive,
                   bool withBody = true)
        : DataExchange(socket)
        , m_bytes(reply.toBytes(keepAlive, withBody))
        , m_keepAlive(keepAlive)
    {}

    Step start() override
    {
        m_socket->write(m_bytes);
        return m_keepAlive ? Step::Done : Step::DoneClose;
    }

private:
    QByteArray m_bytes;
    bool m_keepAlive;
};

} // namespace ddl::server
