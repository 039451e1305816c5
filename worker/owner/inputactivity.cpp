#include "inputactivity.h"

#include <QDir>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

QStringList InputActivity::defaultPatterns()
{
    return {u"/dev/tty[0-9]*"_s, u"/dev/pts/[0-9]*"_s, u"/dev/input/event*"_s};
}

bool InputActivity::isSupported()
{
#ifdef Q_OS_LINUX
    return true;
#else
    return false;
#endif
}

InputActivity::InputActivity(const QStringList &patterns)
    : m_patterns(patterns)
{
}

InputActivity::Latest InputActivity::latest() const
{
    Latest newest;
#ifdef Q_OS_LINUX
    for (const QString &pattern : m_patterns) {
        const QFileInfo info(pattern);
        // Device nodes are "system" entries to QDir; a test's stand-in is a plain file.
        const QFileInfoList files =
            QDir(info.path())
                .entryInfoList({info.fileName()},
                               QDir::Files | QDir::System | QDir::NoDotAndDotDot);
        for (const QFileInfo &file : files) {
            // Reading a terminal stamps its access time, writing to it its modification time.
            const QDateTime touched = std::max(file.lastRead(), file.lastModified());
            if (touched.isValid() && (!newest.at.isValid() || touched > newest.at))
                newest = {touched, file.filePath()};
        }
    }
#endif
    return newest;
}

} // namespace ddl::worker
