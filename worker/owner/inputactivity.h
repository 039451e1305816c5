#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace ddl::worker {

// When someone last typed at this machine's consoles and terminals or used its input devices:
// the newest access time of the files matching the patterns (reads: input; a terminal's
// modification time moves with its output, so it is not used), leaving out the terminals of the
// worker's own stdout and stderr, much as `w` reads idle times from the terminals. stat() needs no permission on the files themselves, so a worker
// running as an unprivileged system user can read them (docs/owners.md says what this sees and
// what it does not). Linux only: elsewhere isSupported() is false and nothing is ever found.
class InputActivity
{
public:
    struct Latest
    {
        QDateTime at; // invalid: no file matched
        QString path; // the file that was touched last
    };

    // /dev/tty[0-9]*, /dev/pts/[0-9]*, /dev/input/event*.
    static QStringList defaultPatterns();
    static bool isSupported();

    // Absolute paths; '*', '?' and '[...]' are allowed in the last part (the file's name).
    explicit InputActivity(const QStringList &patterns = defaultPatterns());

    // The newest time among the files that match now.
    Latest latest() const;
    QStringList patterns() const { return m_patterns; }

private:
    QStringList m_patterns;
};

} // namespace ddl::worker
