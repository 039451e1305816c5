#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QHash>
#include <QUrlQuery>

namespace ddl::server {

// The request line and headers of one HTTP/1.x request, as the front reads them before it
// decides who handles the request.
struct RequestHead
{
    QByteArray method;
    QByteArray path; // percent-decoding is left to whoever matches it
    QUrlQuery query;
    QHash<QByteArray, QByteArray> headers; // names in lower case
    qint64 contentLength = -1;             // -1: no Content-Length
    bool chunked = false;
    bool expectContinue = false;
    bool keepAlive = true;
    qsizetype size = 0; // bytes of the head, the blank line included

    QByteArray header(const QByteArray &lowerCaseName) const { return headers.value(lowerCaseName); }
    bool hasBody() const { return chunked || contentLength > 0; }
};

enum class HeadStatus { Incomplete, Complete, TooLarge, Malformed };

// Parses a head from the start of bytes. Incomplete while no blank line has arrived within
// maxBytes; TooLarge once maxBytes hold no end of the head.
HeadStatus parseRequestHead(QByteArrayView bytes, qsizetype maxBytes, RequestHead *head);

// For a request whose body is read whole: 413 when its Content-Length passes maxBodyBytes, 411
// when it is chunked (the size must be known before any of it is read).
Status checkWholeBody(const RequestHead &head, qint64 maxBodyBytes);

} // namespace ddl::server
