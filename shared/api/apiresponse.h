#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>

namespace ddl {

// What the server answered: status, headers and body. A non-2xx answer is turned into an Error
// by ApiRequest, so a held ApiResponse is always a success.
struct ApiResponse
{
    int status = 0;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;

    QJsonObject json() const;
    QByteArray header(const QByteArray &name) const;
};

} // namespace ddl
