#include "dataexchange.h"

#include "requesthead.h"

namespace ddl::server {

ImmediateReply::ImmediateReply(QSslSocket *socket, const HttpReply &reply, const RequestHead &head)
    : ImmediateReply(socket, reply, head.keepAlive && !head.hasBody(), head.method != "HEAD")
{}

} // namespace ddl::server
