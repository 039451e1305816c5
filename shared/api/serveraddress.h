#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QUrl>

namespace ddl {

// What a person types as the server ("host:8443", "HTTPS://Host:8443/v1/") made into the one
// form every client keeps its settings, pins and tokens under: "https://host:port". A text
// without a scheme is taken as https; any other scheme is refused (DDL speaks TLS only).
class ServerAddress
{
    Q_DECLARE_TR_FUNCTIONS(ServerAddress)
public:
    static Result<QUrl> parse(const QString &text);
    static QString key(const QUrl &url);
};

} // namespace ddl
