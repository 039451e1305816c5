#include "gitsupport.h"

namespace ddl::gitsupport {

void ensureInitialized()
{
    // A function-local static is initialised exactly once, even with concurrent callers.
    [[maybe_unused]] static const int initCount = git_libgit2_init();
}

QString lastErrorMessage()
{
    const git_error *error = git_error_last();
    if (error && error->message)
        return QString::fromUtf8(error->message);
    return QStringLiteral("libgit2 reported a failure without a message");
}

} // namespace ddl::gitsupport
