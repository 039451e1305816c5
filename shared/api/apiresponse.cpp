#include "apiresponse.h"

#include <QJsonDocument>

namespace ddl {

QJsonObject ApiResponse::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QByteArray ApiResponse::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace ddl
