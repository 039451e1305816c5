#include "sqlliteral.h"

#include "core/sha256.h"

#include <algorithm>

namespace ddl::server::sqlliteral {

static QString quoted(const QString &text)
{
    return u'\'' + text + u'\'';
}

std::optional<QString> digest(const QString &sha256)
{
    if (!isSha256Hex(sha256))
        return std::nullopt;
    return quoted(sha256);
}

std::optional<QString> digestList(const QStringList &sha256s)
{
    QString list;
    list.reserve(sha256s.size() * 68);
    for (const QString &sha256 : sha256s) {
        const std::optional<QString> one = digest(sha256);
        if (!one)
            return std::nullopt;
        if (!list.isEmpty())
            list += QStringLiteral(", ");
        list += *one;
    }
    return list;
}

std::optional<QString> plainText(const QString &text)
{
    const bool plain = text.size() <= 200 && std::all_of(text.cbegin(), text.cend(), [](QChar c) {
                           return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
                                  (c >= u'0' && c <= u'9') || c == u':' || c == u'.' || c == u'_' ||
                                  c == u'-';
                       });
    if (!plain)
        return std::nullopt;
    return quoted(text);
}

} // namespace ddl::server::sqlliteral
