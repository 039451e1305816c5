#include "httpreply.h"

#include "requestreader.h"

#include <QFile>
#include <QHash>
#include <QJsonDocument>

namespace ddl::server {

using Status = QHttpServerResponse::StatusCode;

QHttpServerResponse::StatusCode HttpReply::statusFor(const QString &code)
{
    static const QHash<ErrorCode, Status> statuses{
        {ErrorCode::BadRequest, Status::BadRequest},
        {ErrorCode::InvalidSpec, Status::BadRequest},
        {ErrorCode::BadManifest, Status::BadRequest},
        {ErrorCode::Unauthorized, Status::Unauthorized},
        {ErrorCode::SessionExpired, Status::Unauthorized},
        {ErrorCode::Forbidden, Status::Forbidden},
        {ErrorCode::NotFound, Status::NotFound},
        {ErrorCode::MethodNotAllowed, Status::MethodNotAllowed},
        {ErrorCode::Conflict, Status::Conflict},
        {ErrorCode::OffsetMismatch, Status::Conflict},
        {ErrorCode::NameInUse, Status::Conflict},
        {ErrorCode::Unschedulable, Status::UnprocessableEntity},
        {ErrorCode::PayloadTooLarge, Status::PayloadTooLarge},
        {ErrorCode::RangeNotSatisfiable, Status::RequestRangeNotSatisfiable},
        {ErrorCode::DigestMismatch, Status::UnprocessableEntity},
        {ErrorCode::ChunkCorrupted, Status::UnprocessableEntity},
        {ErrorCode::LengthRequired, Status::LengthRequired},
        {ErrorCode::HeadersTooLarge, Status::RequestHeaderFieldsTooLarge},
        {ErrorCode::RateLimited, Status::TooManyRequests},
    };
    const std::optional<ErrorCode> known = parseErrorCode(code);
    return known ? statuses.value(*known, Status::InternalServerError)
                 : Status::InternalServerError;
}

QHttpServerResponse HttpReply::error(const Error &error)
{
    Error shown = error;
    // Internal details stay in the server log; the client gets a message it can act on.
    if (statusFor(error.code) == Status::InternalServerError) {
        qWarning("internal error: %s", qUtf8Printable(error.message));
        shown = Error::make(ErrorCode::Internal,
                            QStringLiteral("the server failed to handle the request; its log has "
                                           "the details, try again later"));
    }
    return json(shown.toJson(), statusFor(shown.code));
}

QHttpServerResponse HttpReply::json(const QJsonObject &body, Status status)
{
    return QHttpServerResponse(QByteArrayLiteral("application/json"),
                               QJsonDocument(body).toJson(QJsonDocument::Compact), status);
}

QHttpServerResponse HttpReply::from(const Result<QJsonObject> &result, Status status)
{
    return result ? json(*result, status) : error(result.error());
}

QHttpServerResponse HttpReply::fileSlice(const QString &path, const ByteRange &range)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(range.first)) {
        return error(
            Error::make(ErrorCode::Internal,
                        QStringLiteral("cannot read %1: %2").arg(path, file.errorString())));
    }
    QByteArray bytes = file.read(range.length);
    QHttpServerResponse response(QByteArrayLiteral("application/octet-stream"), std::move(bytes),
                                 range.partial ? Status::PartialContent : Status::Ok);
    response.setHeader("Accept-Ranges", "bytes");
    if (range.partial) {
        response.setHeader("Content-Range",
                           "bytes " + QByteArray::number(range.first) + '-'
                               + QByteArray::number(range.first + range.length - 1) + '/'
                               + QByteArray::number(range.size));
    }
    return response;
}

} // namespace ddl::server
