#include "error.h"

namespace ddl {

Error Error::make(ErrorCode code, const QString &message, const QString &field)
{
    return Error{codeName(code), message, field, {}};
}

Error Error::httpStatus(int status, const QString &message)
{
    return Error{QStringLiteral("http_%1").arg(status), message, {}, {}};
}

Error Error::withMessage(const QString &newMessage) const
{
    Error error = *this;
    error.message = newMessage;
    return error;
}

QJsonObject Error::toJson() const
{
    QJsonObject inner = details;
    inner.insert(QStringLiteral("code"), code);
    inner.insert(QStringLiteral("message"), message);
    if (!field.isEmpty())
        inner.insert(QStringLiteral("field"), field);
    return QJsonObject{{QStringLiteral("error"), inner}};
}

Error Error::fromJson(const QJsonObject &object)
{
    QJsonObject inner = object.value(QStringLiteral("error")).toObject();
    Error error{inner.take(QStringLiteral("code")).toString(),
                inner.take(QStringLiteral("message")).toString(),
                inner.take(QStringLiteral("field")).toString(),
                {}};
    // An older server's synonym reads as the one spelling this version compares against.
    if (const std::optional<ErrorCode> known = parseErrorCode(error.code))
        error.code = codeName(*known);
    error.details = inner;
    return error;
}

} // namespace ddl
