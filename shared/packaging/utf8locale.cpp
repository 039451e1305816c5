#include "utf8locale.h"

#include <QtGlobal>

#if defined(Q_OS_MACOS) || defined(Q_OS_IOS)
#include <xlocale.h>
#elif defined(Q_OS_UNIX)
#include <locale.h>
#endif

namespace ddl {

#ifdef Q_OS_UNIX
static locale_t utf8Locale()
{
    static const locale_t utf8 = [] {
        for (const char *name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"}) {
            if (const locale_t locale = newlocale(LC_CTYPE_MASK, name, locale_t(nullptr)))
                return locale;
        }
        return locale_t(nullptr);
    }();
    return utf8;
}
#endif

ScopedUtf8Locale::ScopedUtf8Locale()
{
#ifdef Q_OS_UNIX
    if (const locale_t utf8 = utf8Locale())
        m_previous = static_cast<void *>(uselocale(utf8));
#endif
}

ScopedUtf8Locale::~ScopedUtf8Locale()
{
#ifdef Q_OS_UNIX
    if (m_previous)
        uselocale(static_cast<locale_t>(m_previous));
#endif
}

} // namespace ddl
