#include "inputactivity.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#ifdef Q_OS_LINUX
#include <sys/stat.h>
#endif

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

#ifdef Q_OS_LINUX
namespace {

// The terminals (or files) the worker's own stdout and stderr go to: the worker reads nothing
// there, and a tty's times move with its output, not with anyone typing.
bool isOwnOutput(const struct stat &file)
{
    for (const int fd : {1, 2}) {
        struct stat own;
        if (::fstat(fd, &own) != 0)
            continue;
        if (S_ISCHR(own.st_mode) ? S_ISCHR(file.st_mode) && file.st_rdev == own.st_rdev
                                 : file.st_dev == own.st_dev && file.st_ino == own.st_ino)
            return true;
    }
    return false;
}

} // namespace
#endif

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
            // Reading a terminal (someone typed) stamps its access time; writing to it (a
            // `tail -f`, the worker's own log) its modification time, which is no input.
            struct stat status;
            if (::stat(QFile::encodeName(file.filePath()).constData(), &status) != 0 ||
                isOwnOutput(status))
                continue;
            const QDateTime touched = QDateTime::fromMSecsSinceEpoch(
                qint64(status.st_atim.tv_sec) * 1000 + status.st_atim.tv_nsec / 1000000);
            if (touched.isValid() && (!newest.at.isValid() || touched > newest.at))
                newest = {touched, file.filePath()};
        }
    }
#endif
    return newest;
}

} // namespace ddl::worker
