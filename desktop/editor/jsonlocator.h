#pragma once

#include <QHash>
#include <QString>

namespace ddl::desktop {

// Where each value of a JSON text sits, by the field paths the validator names
// ("taskRoles[1].gpuNumber"), so that an error can be marked on its line. Tolerant: text after
// a syntax error is simply not indexed.
class JsonLocator
{
public:
    explicit JsonLocator(const QString &text);

    // The offset of the path's key (or array element); for a path that is absent (a missing
    // field), the offset of its nearest parent that is present; 0 for the document.
    qsizetype offsetOf(const QString &path) const;
    bool contains(const QString &path) const { return m_offsets.contains(path); }

private:
    void value(const QString &path);
    void skipSpace();
    bool string(QString *out);

    const QString &m_text;
    qsizetype m_pos = 0;
    bool m_failed = false;
    QHash<QString, qsizetype> m_offsets;
};

} // namespace ddl::desktop
