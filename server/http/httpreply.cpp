#include "httpreply.h"

#include <QHash>
#include <QJsonDocument>

namespace ddl::server {

HttpReply::HttpReply(const QByteArray &contentType, QByteArray body, int status)
    : m_status(status)
    , m_headers{{"Content-Type", contentType}}
    , m_body(std::move(body))
{
}

int HttpReply::statusFor(const QString &code)
{
    static const QHash<QString, int> statuses{
        {QStringLiteral("bad_request"), 400},       {QStringLiteral("invalid_spec"), 400},
        {QStringLiteral("bad_manifest"), 400},      {QStringLiteral("unauthorized"), 401},
        {QStringLiteral("session_expired"), 401},   {QStringLiteral("forbidden"), 403},
        {QStringLiteral("not_found"), 404},         {QStringLiteral("method_not_allowed"), 405},
        {QStringLiteral("conflict"), 409},          {QStringLiteral("offset_mismatch"), 409},
        {QStringLiteral("name_in_use"), 409},       {QStringLiteral("unschedulable"), 422},
        {QStringLiteral("payload_too_large"), 413}, {QStringLiteral("range_not_satisfiable"), 416},
        {QStringLiteral("digest_mismatch"), 422},   {QStringLiteral("chunk_corrupted"), 422},
        {QStringLiteral("length_required"), 411},   {QStringLiteral("headers_too_large"), 431},
        {QStringLiteral("rate_limited"), 429},
    };
    return statuses.value(code, 500);
}

HttpReply HttpReply::error(const Error &error)
{
    Error shown = error;
    // Internal details stay in the server log; the client gets a message it can act on.
    if (statusFor(error.code) == 500) {
        qWarning("internal error: %s", qUtf8Printable(error.message));
        shown = Error::make(ErrorCode::Internal,
                            QStringLiteral("the server failed to handle the request; its log has "
                                           "the details, try again later"));
    }
    return json(shown.toJson(), statusFor(shown.code));
}

HttpReply HttpReply::json(const QJsonObject &body, int status)
{
    return HttpReply(
        "application/json", QJsonDocument(body).toJson(QJsonDocument::Compact), status);
}

HttpReply HttpReply::from(const Result<QJsonObject> &result, int status)
{
    return result ? json(*result, status) : error(result.error());
}

HttpReply HttpReply::later(QFuture<Finish> work)
{
    HttpReply reply;
    reply.m_pending = std::move(work);
    return reply;
}

void HttpReply::setHeader(const QByteArray &name, const QByteArray &value)
{
    m_headers.append(qMakePair(name, value));
}

QByteArray HttpReply::toBytes(bool keepAlive, bool withBody) const
{
    return head(m_status, m_headers, m_body.size(), keepAlive) + (withBody ? m_body : QByteArray());
}

static QByteArray reason(int status)
{
    static const QHash<int, QByteArray> reasons{
        {200, "OK"},
        {201, "Created"},
        {204, "No Content"},
        {206, "Partial Content"},
        {400, "Bad Request"},
        {401, "Unauthorized"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {405, "Method Not Allowed"},
        {409, "Conflict"},
        {411, "Length Required"},
        {413, "Content Too Large"},
        {416, "Range Not Satisfiable"},
        {422, "Unprocessable Content"},
        {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"},
    };
    return reasons.value(status, status >= 500 ? "Internal Server Error" : "Status");
}

QByteArray
HttpReply::head(int status, const HeaderList &headers, qint64 contentLength, bool keepAlive)
{
    QByteArray text = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    for (const auto &[name, value] : headers)
        text += name + ": " + value + "\r\n";
    if (contentLength >= 0)
        text += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
    if (!keepAlive)
        text += "Connection: close\r\n";
    text += "\r\n";
    return text;
}

} // namespace ddl::server
