#pragma once

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <locale.h>
#endif

namespace ddl {

// Switches the calling thread to a UTF-8 character type for as long as it lives. libarchive
// converts entry names through the current locale: under "C" (a service started without LANG)
// a non-ASCII name makes its pax writer crash and its reader drop the name. With this guard
// around every libarchive call, names are UTF-8 and the bytes written never depend on the
// locale the process happens to run in.
class ScopedUtf8Locale
{
public:
    ScopedUtf8Locale()
    {
#ifdef Q_OS_UNIX
        static const locale_t utf8 = makeUtf8Locale();
        if (utf8)
            m_previous = uselocale(utf8);
#endif
    }

    ~ScopedUtf8Locale()
    {
#ifdef Q_OS_UNIX
        if (m_previous)
            uselocale(m_previous);
#endif
    }

    ScopedUtf8Locale(const ScopedUtf8Locale &) = delete;
    ScopedUtf8Locale &operator=(const ScopedUtf8Locale &) = delete;

private:
#ifdef Q_OS_UNIX
    static locale_t makeUtf8Locale()
    {
        for (const char *name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"}) {
            if (const locale_t locale = newlocale(LC_CTYPE_MASK, name, locale_t(nullptr)))
                return locale;
        }
        return locale_t(nullptr);
    }

    locale_t m_previous = locale_t(nullptr);
#endif
};

} // namespace ddl
