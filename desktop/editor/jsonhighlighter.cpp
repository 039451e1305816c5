#include "jsonhighlighter.h"

#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JsonHighlighter::JsonHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
    m_key.setForeground(QColor(0x0b, 0x4f, 0x9c));
    m_key.setFontWeight(QFont::DemiBold);
    m_string.setForeground(QColor(0x1a, 0x7f, 0x37));
    m_number.setForeground(QColor(0x95, 0x38, 0x00));
    m_literal.setForeground(QColor(0x82, 0x50, 0xdf));
}

void JsonHighlighter::highlightBlock(const QString &text)
{
    static const QRegularExpression strings(u"\"(?:[^\"\\\\]|\\\\.)*\"(\\s*:)?"_s);
    static const QRegularExpression numbers(u"(?<![\\w.])-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?"_s);
    static const QRegularExpression literals(u"\\b(true|false|null)\\b"_s);
    for (auto it = numbers.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        setFormat(int(match.capturedStart()), int(match.capturedLength()), m_number);
    }
    for (auto it = literals.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        setFormat(int(match.capturedStart()), int(match.capturedLength()), m_literal);
    }
    // Strings last: a digit inside a string stays a string.
    for (auto it = strings.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        const bool isKey = match.capturedLength(1) > 0;
        const int length = int(match.capturedLength() - match.capturedLength(1));
        setFormat(int(match.capturedStart()), length, isKey ? m_key : m_string);
    }
}

} // namespace ddl::desktop
