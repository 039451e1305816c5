#include "mainfunctioncheck.h"

#include <QRegularExpression>

namespace ddl {

// The text from an opening bracket at start up to its matching closing one, without either;
// strings and comments are stepped over. std::nullopt when it is never closed.
static std::optional<QString> bracketed(const QString &text, qsizetype start)
{
    int depth = 0;
    QChar quote;
    for (qsizetype i = start; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (!quote.isNull()) {
            if (c == u'\\')
                ++i;
            else if (c == quote)
                quote = QChar();
            continue;
        }
        if (c == u'\'' || c == u'"') {
            quote = c;
        } else if (c == u'#') {
            while (i < text.size() && text.at(i) != u'\n')
                ++i;
        } else if (c == u'(' || c == u'[' || c == u'{') {
            ++depth;
        } else if (c == u')' || c == u']' || c == u'}') {
            if (--depth == 0)
                return text.mid(start + 1, i - start - 1);
        }
    }
    return std::nullopt;
}

// Splits at the commas outside brackets and strings; comments are dropped.
static QStringList splitParameters(const QString &list)
{
    QStringList parts;
    QString current;
    int depth = 0;
    QChar quote;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QChar c = list.at(i);
        if (!quote.isNull()) {
            current += c;
            if (c == quote)
                quote = QChar();
            continue;
        }
        if (c == u'#') {
            while (i + 1 < list.size() && list.at(i + 1) != u'\n')
                ++i;
            continue;
        }
        if (c == u'\'' || c == u'"')
            quote = c;
        else if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if (c == u')' || c == u']' || c == u'}')
            --depth;
        if (c == u',' && depth == 0) {
            parts.append(current.simplified());
            current.clear();
        } else {
            current += c;
        }
    }
    parts.append(current.simplified());
    parts.removeAll(QString()); // a trailing comma
    return parts;
}

std::optional<QStringList> MainFunctionCheck::mainParameters(const QByteArray &mainPy)
{
    const QString text = QString::fromUtf8(mainPy);
    // Top level only: a method or nested function called main is not what the runner calls.
    static const QRegularExpression definition(QStringLiteral("^def[ \\t]+main[ \\t]*\\("),
                                               QRegularExpression::MultilineOption);
    qsizetype last = -1;
    for (auto it = definition.globalMatch(text); it.hasNext();)
        last = it.next().capturedEnd() - 1; // the '('
    if (last < 0)
        return std::nullopt;
    const std::optional<QString> list = bracketed(text, last);
    if (!list)
        return QStringList{};
    return splitParameters(*list);
}

bool MainFunctionCheck::acceptsTwoArguments(const QStringList &parameters)
{
    int positional = 0;
    int required = 0;
    bool varargs = false;
    bool keywordOnly = false;
    for (const QString &parameter : parameters) {
        if (parameter == QLatin1String("/"))
            continue;
        if (parameter.startsWith(QLatin1String("**")))
            continue;
        if (parameter.startsWith(u'*')) {
            varargs = varargs || parameter.size() > 1;
            keywordOnly = true;
            continue;
        }
        const bool hasDefault = parameter.contains(u'=');
        if (keywordOnly) {
            if (!hasDefault)
                return false; // a keyword argument the runner never passes
            continue;
        }
        ++positional;
        if (!hasDefault)
            ++required;
    }
    return required <= 2 && (positional >= 2 || varargs);
}

Status MainFunctionCheck::check(const QByteArray &mainPy)
{
    const std::optional<QStringList> parameters = mainParameters(mainPy);
    if (parameters) {
        if (acceptsTwoArguments(*parameters))
            return Ok{};
        return Error::make(ErrorCode::NoMainFunction,
                           QStringLiteral("main.py defines main(%1), but DDL calls "
                                          "main(dataset_dir, model_output_dir) with two "
                                          "arguments: give main these two parameters, commit, "
                                          "and submit again")
                               .arg(parameters->join(QStringLiteral(", "))));
    }
    // Bound some other way at the top level: its parameters cannot be read here.
    static const QRegularExpression otherBinding(
        QStringLiteral("^(from[ \\t]+\\S+[ \\t]+import[ \\t]*\\([^)]*\\bmain\\b"
                       "|from[ \\t]+\\S+[ \\t]+import[ \\t].*\\bmain\\b"
                       "|import[ \\t].*\\bas[ \\t]+main\\b"
                       "|main[ \\t]*(:[^=\\n]*)?=[^=])"),
        QRegularExpression::MultilineOption);
    if (otherBinding.match(QString::fromUtf8(mainPy)).hasMatch())
        return Ok{};
    return Error::make(ErrorCode::NoMainFunction,
                       QStringLiteral("main.py defines no main function: DDL calls "
                                      "main(dataset_dir, model_output_dir) in it; add\n"
                                      "  def main(dataset_dir, model_output_dir):\n"
                                      "      ...\n"
                                      "at the top level of main.py, commit, and submit again"));
}

} // namespace ddl
