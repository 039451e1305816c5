#pragma once

namespace ddl {

// Switches the calling thread to a UTF-8 character type for as long as it lives. libarchive
// converts entry names through the current locale: under "C" (a service started without LANG)
// a non-ASCII name makes its pax writer crash and its reader drop the name. With this guard
// around every libarchive call, names are UTF-8 and the bytes written never depend on the
// locale the process happens to run in.
//
// The platform seam of the packaging code: POSIX uselocale() on Linux and macOS (<xlocale.h>
// there); nothing on Windows, where libarchive's *_utf8 and wide-character calls that DDL uses
// do not go through the C locale.
class ScopedUtf8Locale
{
public:
    ScopedUtf8Locale();
    ~ScopedUtf8Locale();

    ScopedUtf8Locale(const ScopedUtf8Locale &) = delete;
    ScopedUtf8Locale &operator=(const ScopedUtf8Locale &) = delete;

private:
    void *m_previous = nullptr; // the thread's locale_t before, where there is one
};

} // namespace ddl
