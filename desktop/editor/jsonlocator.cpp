#include "jsonlocator.h"

#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JsonLocator::JsonLocator(const QString &text)
    : m_text(text)
{
    value(QString());
}

void JsonLocator::skipSpace()
{
    while (m_pos < m_text.size() && m_text.at(m_pos).isSpace())
        ++m_pos;
}

bool JsonLocator::string(QString *out)
{
    if (m_pos >= m_text.size() || m_text.at(m_pos) != u'"')
        return false;
    ++m_pos;
    QString result;
    while (m_pos < m_text.size()) {
        const QChar c = m_text.at(m_pos++);
        if (c == u'"') {
            if (out)
                *out = result;
            return true;
        }
        if (c == u'\\' && m_pos < m_text.size())
            result += m_text.at(m_pos++); // good enough for keys: the escape's letter
        else
            result += c;
    }
    return false;
}

void JsonLocator::value(const QString &path)
{
    skipSpace();
    if (m_failed || m_pos >= m_text.size())
        return;
    const QChar c = m_text.at(m_pos);
    if (c == u'{') {
        ++m_pos;
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size()) {
                m_failed = true;
                return;
            }
            if (m_text.at(m_pos) == u'}') {
                ++m_pos;
                return;
            }
            const qsizetype keyAt = m_pos;
            QString key;
            if (!string(&key)) {
                m_failed = true;
                return;
            }
            const QString child = path.isEmpty() ? key : path + u'.' + key;
            m_offsets.insert(child, keyAt);
            skipSpace();
            if (m_pos >= m_text.size() || m_text.at(m_pos) != u':') {
                m_failed = true;
                return;
            }
            ++m_pos;
            value(child);
            if (m_failed)
                return;
            skipSpace();
            if (m_pos < m_text.size() && m_text.at(m_pos) == u',')
                ++m_pos;
        }
    }
    if (c == u'[') {
        ++m_pos;
        for (int index = 0;; ++index) {
            skipSpace();
            if (m_pos >= m_text.size()) {
                m_failed = true;
                return;
            }
            if (m_text.at(m_pos) == u']') {
                ++m_pos;
                return;
            }
            const QString child = path + u'[' + QString::number(index) + u']';
            m_offsets.insert(child, m_pos);
            value(child);
            if (m_failed)
                return;
            skipSpace();
            if (m_pos < m_text.size() && m_text.at(m_pos) == u',')
                ++m_pos;
        }
    }
    if (c == u'"') {
        if (!string(nullptr))
            m_failed = true;
        return;
    }
    // A number, true, false or null.
    const qsizetype start = m_pos;
    while (m_pos < m_text.size() && !m_text.at(m_pos).isSpace() && m_text.at(m_pos) != u','
           && m_text.at(m_pos) != u'}' && m_text.at(m_pos) != u']')
        ++m_pos;
    if (m_pos == start)
        m_failed = true;
}

qsizetype JsonLocator::offsetOf(const QString &path) const
{
    static const QRegularExpression lastPart(u"(\\.[^.\\[]*|\\[\\d+\\])$"_s);
    QString current = path;
    while (!current.isEmpty()) {
        const auto it = m_offsets.find(current);
        if (it != m_offsets.end())
            return it.value();
        const QString shorter = QString(current).remove(lastPart);
        if (shorter == current)
            break;
        current = shorter;
    }
    return 0;
}

} // namespace ddl::desktop
