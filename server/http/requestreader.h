#pragma once

#include "core/result.h"
#include "httprequest.h"

#include <QJsonObject>

namespace ddl::server {

// A byte range of a file to send: [first, first + length) of size.
struct ByteRange
{
    qint64 first = 0;
    qint64 length = 0;
    qint64 size = 0;
    bool partial = false;
};

// Reads what handlers need from a request: a JSON object body, query numbers, the bearer token,
// a Range header. Each reader has a form over the raw bytes, which is what tests/fuzz feeds.
class RequestReader
{
public:
    static Result<QJsonObject> jsonBody(const HttpRequest &request);
    static Result<qint64> queryInteger(const HttpRequest &request, const QString &name,
                                       qint64 fallback);

    static Result<QJsonObject> parseJsonObject(const QByteArray &body);
    // The token of an "Authorization: Bearer <token>" header value; empty when there is none.
    static QString parseBearerToken(const QByteArray &header);
    // text is a query item's value; empty text gives fallback.
    static Result<qint64> parseInteger(const QString &text, const QString &name, qint64 fallback);
    // Parses "bytes=a-b" / "bytes=a-" / "bytes=-n" (the last n) against size; no header, another
    // unit or several ranges mean the first maxLength bytes.
    static Result<ByteRange> parseRange(const QByteArray &header, qint64 size, qint64 maxLength);
};

} // namespace ddl::server
