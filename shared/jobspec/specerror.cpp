#include "specerror.h"

#include <QStringList>

namespace ddl {

QString SpecError::toString() const
{
    if (field.isEmpty())
        return message;
    return field + QLatin1String(": ") + message;
}

QJsonObject SpecError::toJson() const
{
    return QJsonObject{{QStringLiteral("field"), field}, {QStringLiteral("message"), message}};
}

SpecError SpecError::fromJson(const QJsonObject &object)
{
    return SpecError{object.value(QLatin1String("field")).toString(),
                     object.value(QLatin1String("message")).toString()};
}

QJsonArray specErrorsToJson(const QList<SpecError> &errors)
{
    QJsonArray array;
    for (const SpecError &error : errors)
        array.append(error.toJson());
    return array;
}

Error specErrorsToError(const QList<SpecError> &errors)
{
    QStringList lines;
    lines.reserve(errors.size());
    for (const SpecError &error : errors)
        lines.append(error.toString());
    Error error = Error::make(ErrorCode::InvalidSpec,
                              lines.join(u'\n'),
                              errors.isEmpty() ? QString() : errors.first().field);
    // The wire carries every error with its field path, so clients can mark each one.
    error.details.insert(QStringLiteral("errors"), specErrorsToJson(errors));
    return error;
}

} // namespace ddl
