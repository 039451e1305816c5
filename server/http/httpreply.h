#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QFuture>
#include <QJsonObject>
#include <QList>
#include <QPair>

#include <functional>
#include <optional>

namespace ddl::server {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// One HTTP answer (status, headers, body), as a control route's handler returns it and the front
// writes it, with its Content-Length. Also the one place where errors become HTTP answers: each
// Error code maps to one status, and the body is always {"error": {"code", "message", "field"?}}.
class HttpReply
{
public:
    // What work left to a pool thread hands back: the server's thread runs it to make the reply
    // (so that the store is only touched from the thread of its connection).
    using Finish = std::function<HttpReply()>;

    HttpReply() = default;
    HttpReply(const QByteArray &contentType, QByteArray body, int status = 200);

    static HttpReply error(const Error &error);
    static HttpReply json(const QJsonObject &body, int status = 200);
    static HttpReply from(const Result<QJsonObject> &result, int status = 200);
    // A reply that comes when work on a pool thread is done (Argon2id, a log search), while the
    // event loop serves everyone else; it is dropped if the client leaves first.
    static HttpReply later(QFuture<Finish> work);
    static int statusFor(const QString &code);

    void setHeader(const QByteArray &name, const QByteArray &value);
    int status() const { return m_status; }
    const QByteArray &body() const { return m_body; }
    std::optional<QFuture<Finish>> pending() const { return m_pending; }

    // The answer as it goes on the wire; without the body (but with its length) for HEAD.
    QByteArray toBytes(bool keepAlive, bool withBody = true) const;
    // A status line and headers alone, for an answer whose body is streamed after it;
    // contentLength -1 leaves the length out (chunked answers).
    static QByteArray
    head(int status, const HeaderList &headers, qint64 contentLength, bool keepAlive);

private:
    int m_status = 200;
    HeaderList m_headers;
    QByteArray m_body;
    std::optional<QFuture<Finish>> m_pending;
};

} // namespace ddl::server
