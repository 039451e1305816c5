#include "jsoncomments.h"

namespace ddl {

JsonComments::Stripped JsonComments::strip(const QByteArray &text)
{
    Stripped result;
    result.json = text;
    QByteArray &out = result.json;
    const qsizetype size = out.size();
    qsizetype i = 0;
    while (i < size) {
        const char c = out.at(i);
        if (c == '"') {
            // Skip the string, escapes included: "//" and "/*" in it are text.
            for (++i; i < size && out.at(i) != '"'; ++i) {
                if (out.at(i) == '\\')
                    ++i;
            }
            ++i;
            continue;
        }
        if (c != '/' || i + 1 >= size) {
            ++i;
            continue;
        }
        const char next = out.at(i + 1);
        if (next == '/') {
            while (i < size && out.at(i) != '\n' && out.at(i) != '\r')
                out[i++] = ' ';
        } else if (next == '*') {
            const qsizetype start = i;
            const qsizetype end = out.indexOf("*/", i + 2);
            if (end < 0) {
                result.error = QStringLiteral("syntax error at %1: a /* comment is never closed; "
                                              "end it with */")
                                   .arg(position(text, start));
                return result;
            }
            for (; i < end + 2; ++i) {
                if (out.at(i) != '\n' && out.at(i) != '\r')
                    out[i] = ' ';
            }
        } else {
            ++i;
        }
    }
    return result;
}

QString JsonComments::position(const QByteArray &text, qsizetype offset)
{
    const QByteArray before = text.left(qBound(qsizetype(0), offset, text.size()));
    const qsizetype line = before.count('\n') + 1;
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    const qsizetype column = QString::fromUtf8(before.mid(lineStart)).size() + 1;
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

} // namespace ddl
