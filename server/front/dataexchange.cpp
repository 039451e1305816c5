#include "dataexchange.h"

#include <QBuffer>

namespace ddl::server {

std::unique_ptr<DataExchange> ImmediateReply::error(QSslSocket *socket, const Error &error,
                                                    bool keepAlive)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    FrontReply::error(&buffer, error, keepAlive);
    return std::make_unique<ImmediateReply>(socket, bytes, keepAlive);
}

} // namespace ddl::server
