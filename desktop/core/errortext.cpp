#include "errortext.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

QString ErrorText::describe(const Error &error)
{
    if (error.is(ErrorCode::Unreachable) || error.is(ErrorCode::Network))
        return tr("Cannot reach the server. Check the address and that ddl-server is running.\n(%1)")
            .arg(error.message);
    if (error.is(ErrorCode::Timeout))
        return tr("The server did not answer in time. Check your network and try again.");
    if (error.is(ErrorCode::SessionExpired) || error.is(ErrorCode::Unauthorized))
        return tr("Your session has expired. Log in again.");
    if (error.is(ErrorCode::CertificateChanged))
        return tr("The server presented a different certificate than the one you trusted. If it "
                  "was replaced on purpose, remove the pin in the connection settings; otherwise "
                  "do not connect.");
    if (error.is(ErrorCode::UntrustedCertificate))
        return tr("The server's certificate is not trusted. Pin its fingerprint or choose its CA "
                  "file.");
    if (error.is(ErrorCode::RateLimited))
        return tr("Too many attempts: %1").arg(error.message);
    if (error.is(ErrorCode::Conflict))
        return tr("Conflict: %1").arg(error.message);
    if (error.message.isEmpty())
        return tr("The request failed (%1).").arg(error.code);
    return error.message;
}

QString ErrorText::describeLogin(const Error &error)
{
    if (error.is(ErrorCode::Unauthorized))
        return tr("Wrong email or password.");
    return describe(error);
}

} // namespace ddl::desktop
