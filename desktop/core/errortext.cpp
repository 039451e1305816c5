#include "errortext.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

bool ErrorText::isAuthError(const Error &error)
{
    return error.code == u"unauthorized"_s || error.code == u"session_expired"_s;
}

QString ErrorText::describe(const Error &error)
{
    if (error.code == u"unreachable"_s || error.code == u"network"_s)
        return tr("Cannot reach the server. Check the address and that ddl-server is running.\n(%1)")
            .arg(error.message);
    if (error.code == u"timeout"_s)
        return tr("The server did not answer in time. Check your network and try again.");
    if (error.code == u"session_expired"_s || error.code == u"unauthorized"_s)
        return tr("Your session has expired. Log in again.");
    if (error.code == u"certificate_changed"_s)
        return tr("The server presented a different certificate than the one you trusted. If it "
                  "was replaced on purpose, remove the pin in the connection settings; otherwise "
                  "do not connect.");
    if (error.code == u"untrusted_certificate"_s)
        return tr("The server's certificate is not trusted. Pin its fingerprint or choose its CA "
                  "file.");
    if (error.code == u"rate_limited"_s)
        return tr("Too many attempts: %1").arg(error.message);
    if (error.code == u"conflict"_s)
        return tr("Conflict: %1").arg(error.message);
    if (error.message.isEmpty())
        return tr("The request failed (%1).").arg(error.code);
    return error.message;
}

QString ErrorText::describeLogin(const Error &error)
{
    if (error.code == u"unauthorized"_s)
        return tr("Wrong email or password.");
    return describe(error);
}

} // namespace ddl::desktop
