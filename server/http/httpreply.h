#pragma once

#include "core/result.h"

#include <QHttpServerResponse>
#include <QJsonObject>

namespace ddl::server {

// The one place where errors become HTTP answers: each Error code maps to one status, and the
// body is always {"error": {"code", "message", "field"?}}.
class HttpReply
{
public:
    static QHttpServerResponse error(const Error &error);
    static QHttpServerResponse json(const QJsonObject &body,
                                    QHttpServerResponse::StatusCode status
                                    = QHttpServerResponse::StatusCode::Ok);
    static QHttpServerResponse from(const Result<QJsonObject> &result,
                                    QHttpServerResponse::StatusCode status
                                    = QHttpServerResponse::StatusCode::Ok);
    static QHttpServerResponse::StatusCode statusFor(const QString &code);
    // A slice of a file (200, or 206 with Content-Range when partial), read in one piece of at
    // most the range's length, so memory stays bounded by the largest range served.
    static QHttpServerResponse fileSlice(const QString &path, const struct ByteRange &range);
};

} // namespace ddl::server
