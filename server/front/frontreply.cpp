#include "frontreply.h"

#include "http/httpreply.h"

#include <QJsonDocument>
#include <QLoggingCategory>

namespace ddl::server {

static QByteArray reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 416: return "Range Not Satisfiable";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    default: return status >= 500 ? "Internal Server Error" : "Status";
    }
}

QByteArray FrontReply::head(int status, const HeaderList &headers, qint64 contentLength,
                            bool keepAlive)
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

void FrontReply::json(QIODevice *socket, int status, const QJsonObject &body, bool keepAlive,
                      const HeaderList &headers)
{
    const QByteArray bytes = QJsonDocument(body).toJson(QJsonDocument::Compact);
    HeaderList all = headers;
    all.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    socket->write(head(status, all, bytes.size(), keepAlive) + bytes);
}

void FrontReply::error(QIODevice *socket, const Error &error, bool keepAlive)
{
    int status = int(HttpReply::statusFor(error.code));
    Error shown = error;
    // Internal details stay in the server log; the client gets a message it can act on.
    if (status >= 500) {
        qWarning("internal error: %s", qUtf8Printable(error.message));
        shown = Error::make(ErrorCode::Internal,
                            QStringLiteral("the server failed to handle the request; its log has "
                                           "the details, try again later"));
    }
    json(socket, status, shown.toJson(), keepAlive);
}

void FrontReply::continueInterim(QIODevice *socket)
{
    socket->write("HTTP/1.1 100 Continue\r\n\r\n");
}

} // namespace ddl::server
