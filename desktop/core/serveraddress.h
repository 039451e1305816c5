#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QUrl>

namespace ddl::desktop {

// What a person types as the server ("host:8443", "https://Host:8443/") made into the one form
// settings and tokens are kept under: "https://host:port".
class ServerAddress
{
    Q_DECLARE_TR_FUNCTIONS(ServerAddress)
public:
    static Result<QUrl> parse(const QString &text);
    static QString key(const QUrl &url);
};

} // namespace ddl::desktop
