#pragma once

#include "core/error.h"

#include <QCoreApplication>

namespace ddl::desktop {

// Turns an Error from the wire or the client into what a person reads: what failed and what to
// do, in their language. The server's own message is kept where it names the detail.
class ErrorText
{
    Q_DECLARE_TR_FUNCTIONS(ErrorText)
public:
    static QString describe(const Error &error);
    // For a failed login: a 401 means a wrong email or password, not an expired session.
    static QString describeLogin(const Error &error);
};

} // namespace ddl::desktop
