#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace ddl::desktop {

// Colours JSON: keys, strings, numbers and the literals true/false/null.
class JsonHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit JsonHighlighter(QTextDocument *document);

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_literal;
};

} // namespace ddl::desktop
