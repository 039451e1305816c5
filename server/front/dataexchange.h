#pragma once

#include "frontreply.h"

#include <QSslSocket>

#include <functional>
#include <memory>

namespace ddl::server {

// One data-plane request the front serves itself, from its head to its last byte. The
// connection calls start() once and then onReadable()/onWritten() as the socket moves; each
// says whether the exchange is still going or done (and whether the connection may be reused).
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
    // (an upload chunk that waited for the one before it).
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

    QSslSocket *m_socket;
};

// An answer known from the head alone: an error, or a HEAD request's headers. When the request
// came with a body the front will not read, the connection closes after the answer.
class ImmediateReply : public DataExchange
{
public:
    ImmediateReply(QSslSocket *socket, QByteArray bytes, bool keepAlive)
        : DataExchange(socket)
        , m_bytes(std::move(bytes))
        , m_keepAlive(keepAlive)
    {}

    static std::unique_ptr<DataExchange> error(QSslSocket *socket, const Error &error,
                                               bool keepAlive);

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
