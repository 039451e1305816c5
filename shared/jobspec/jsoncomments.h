#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace ddl {

// OpenPAI's job JSON as people write it: with `// line` and `/* block */` comments (its own
// examples have them). strip() blanks every comment outside strings with spaces, keeping line
// breaks, so a JSON parser's offsets into the result are offsets into the original text and its
// line and column numbers stay right.
class JsonComments
{
public:
    struct Stripped
    {
        QByteArray json;
        // Set when a block comment is never closed: "syntax error at line L, column C: ...".
        std::optional<QString> error;
    };

    static Stripped strip(const QByteArray &text);

    // "line L, column C" of a byte offset (columns count characters, from 1).
    static QString position(const QByteArray &text, qsizetype offset);
};

} // namespace ddl
