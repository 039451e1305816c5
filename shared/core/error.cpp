#include "error.h"

namespace ddl {

Error Error::make(const QString &code, const QString &message, const QString &field)
{
    return Error{code, message, field, {}};
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
    error.details = inner;
    return error;
}

} // namespace ddl
