#include "requesthead.h"

namespace ddl::server {

static bool isToken(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (const char c : text) {
        if (c <= ' ' || c >= 127 || c == ':' || c == '"' || c == '(' || c == ')' || c == ','
            || c == '/' || c == '[' || c == ']' || c == '?' || c == '=' || c == '{' || c == '}') {
            return false;
        }
    }
    return true;
}

static bool parseLength(QByteArrayView text, qint64 *length)
{
    if (text.isEmpty() || text.size() > 18)
        return false;
    qint64 value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
        value = value * 10 + (c - '0');
    }
    *length = value;
    return true;
}

static bool parseRequestLine(QByteArrayView line, RequestHead *head, bool *http10)
{
    const qsizetype firstSpace = line.indexOf(' ');
    const qsizetype lastSpace = line.lastIndexOf(' ');
    if (firstSpace <= 0 || lastSpace <= firstSpace)
        return false;
    const QByteArrayView method = line.first(firstSpace);
    const QByteArrayView target = line.sliced(firstSpace + 1, lastSpace - firstSpace - 1);
    const QByteArrayView version = line.sliced(lastSpace + 1);
    if (!isToken(method) || !target.startsWith('/') || target.contains(' '))
        return false;
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return false;
    *http10 = version == "HTTP/1.0";
    head->method = method.toByteArray();
    const qsizetype question = target.indexOf('?');
    head->path = (question < 0 ? target : target.first(question)).toByteArray();
    head->query = question < 0 ? QUrlQuery()
                               : QUrlQuery(QString::fromLatin1(target.sliced(question + 1)));
    return true;
}

HeadStatus parseRequestHead(QByteArrayView bytes, qsizetype maxBytes, RequestHead *head)
{
    const qsizetype end = bytes.first(std::min(bytes.size(), maxBytes)).indexOf("\r\n\r\n");
    if (end < 0)
        return bytes.size() >= maxBytes ? HeadStatus::TooLarge : HeadStatus::Incomplete;
    *head = RequestHead();
    head->size = end + 4;
    const QByteArrayView text = bytes.first(end);

    qsizetype lineStart = 0;
    bool http10 = false;
    bool first = true;
    bool hasLength = false;
    QByteArray connection;
    while (lineStart <= text.size()) {
        qsizetype lineEnd = text.indexOf("\r\n", lineStart);
        if (lineEnd < 0)
            lineEnd = text.size();
        const QByteArrayView line = text.sliced(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 2;
        if (first) {
            if (!parseRequestLine(line, head, &http10))
                return HeadStatus::Malformed;
            first = false;
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line.first(colon)))
            return HeadStatus::Malformed; // obsolete line folding included
        const QByteArray name = line.first(colon).toByteArray().toLower();
        const QByteArray value = line.sliced(colon + 1).trimmed().toByteArray();
        if (name == "content-length") {
            qint64 length = 0;
            // Two different lengths are how requests get smuggled: refuse them.
            if (!parseLength(value, &length) || (hasLength && length != head->contentLength))
                return HeadStatus::Malformed;
            head->contentLength = length;
            hasLength = true;
        } else if (name == "transfer-encoding") {
            head->chunked = true;
        } else if (name == "expect") {
            head->expectContinue = value.toLower() == "100-continue";
        } else if (name == "connection") {
            connection = value.toLower();
        }
        QByteArray &stored = head->headers[name];
        stored = stored.isEmpty() ? value : stored + ", " + value;
    }
    if (head->chunked && hasLength)
        return HeadStatus::Malformed;
    head->keepAlive = http10 ? connection.contains("keep-alive") : !connection.contains("close");
    return HeadStatus::Complete;
}

Status checkWholeBody(const RequestHead &head, qint64 maxBodyBytes)
{
    if (head.contentLength > maxBodyBytes) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("a body of %1 bytes is over the limit of %2 bytes for "
                                          "this endpoint")
                               .arg(head.contentLength)
                               .arg(maxBodyBytes));
    }
    if (head.chunked) {
        return Error::make(ErrorCode::LengthRequired,
                           QStringLiteral("send the body with a Content-Length header"));
    }
    return Ok{};
}

} // namespace ddl::server
