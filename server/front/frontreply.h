#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QIODevice>
#include <QJsonObject>
#include <QList>
#include <QPair>

namespace ddl::server {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// Writes HTTP/1.1 answers straight onto a connection, for the requests the front serves itself.
// Errors have the same JSON shape and status mapping as the QtHttpServer routes (HttpReply).
class FrontReply
{
public:
    static QByteArray head(int status, const HeaderList &headers, qint64 contentLength,
                           bool keepAlive);
    static void json(QIODevice *socket, int status, const QJsonObject &body, bool keepAlive,
                     const HeaderList &headers = {});
    static void error(QIODevice *socket, const Error &error, bool keepAlive);
    static void continueInterim(QIODevice *socket);
};

} // namespace ddl::server
