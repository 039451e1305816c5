#include "httpreply.h"

#include "requestreader.h"

#include <QFile>
#include <QHash>
#include <QJsonDocument>

namespace ddl::server {

using Status = QHttpServerResponse::StatusCode;

QHttpServerResponse::StatusCode HttpReply::statusFor(const QString &code)
{
    static const QHash<QString, Status> statuses{
        {QStringLiteral("bad_request"), Status::BadRequest},
        {QStringLiteral("invalid_spec"), Status::BadRequest},
        {QStringLiteral("bad_manifest"), Status::BadRequest},
        {QStringLiteral("unauthorized"), Status::Unauthorized},
        {QStringLiteral("session_expired"), Status::Unauthorized},
        {QStringLiteral("forbidden"), Status::Forbidden},
        {QStringLiteral("not_found"), Status::NotFound},
        {QStringLiteral("method_not_allowed"), Status::MethodNotAllowed},
        {QStringLiteral("conflict"), Status::Conflict},
        {QStringLiteral("offset_mismatch"), Status::Conflict},
        {QStringLiteral("name_in_use"), Status::Conflict},
        {QStringLiteral("unschedulable"), Status::UnprocessableEntity},
        {QStringLiteral("payload_too_large"), Status::PayloadTooLarge},
        {QStringLiteral("range_not_satisfiable"), Status::RequestRangeNotSatisfiable},
        {QStringLiteral("digest_mismatch"), Status::UnprocessableEntity},
        {QStringLiteral("chunk_corrupted"), Status::UnprocessableEntity},
        {QStringLiteral("length_required"), Status::LengthRequired},
        {QStringLiteral("headers_too_large"), Status::RequestHeaderFieldsTooLarge},
        {QStringLiteral("rate_limited"), Status::TooManyRequests},
    };
    return statuses.value(code, Status::InternalServerError);
}

QHttpServerResponse HttpReply::error(const Error &error)
{
    Error shown = error;
    // Internal details stay in the server log; the client gets a message it can act on.
    if (statusFor(error.code) == Status::InternalServerError) {
        qWarning("internal error: %s", qUtf8Printable(error.message));
        shown = Error::make(QStringLiteral("internal"),
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
        return error(Error::make(QStringLiteral("internal"),
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
