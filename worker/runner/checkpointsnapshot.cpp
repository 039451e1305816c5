#include "checkpointsnapshot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

// Closes a descriptor when it goes out of scope.
struct Fd
{
    int fd = -1;
    explicit Fd(int value) : fd(value) {}
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

class Walk
{
public:
    Walk(CheckpointSnapshot &result, qint64 maxBytes, dev_t device)
        : m_result(result), m_maxBytes(maxBytes), m_device(device)
    {}

    // Takes the entries of the open folder dirFd (relative path relative, "" at the top) into
    // the staging folder target. False once the snapshot failed.
    bool folder(int dirFd, const QString &relative, const QString &target)
    {
        const int listFd = ::dup(dirFd);
        DIR *dir = listFd >= 0 ? ::fdopendir(listFd) : nullptr;
        if (!dir) {
            if (listFd >= 0)
                ::close(listFd);
            return fail(relative, errno);
        }
        bool ok = true;
        while (ok) {
            errno = 0;
            const dirent *entry = ::readdir(dir);
            if (!entry) {
                if (errno != 0)
                    ok = fail(relative, errno);
                break;
            }
            const QByteArray name(entry->d_name);
            if (name == "." || name == "..")
                continue;
            const QString path = relative.isEmpty() ? QString::fromLocal8Bit(name)
                                                    : relative + u'/' + QString::fromLocal8Bit(name);
            ok = this->entry(dirFd, name, path, target + u'/' + QString::fromLocal8Bit(name));
        }
        ::closedir(dir);
        return ok;
    }

private:
    bool entry(int dirFd, const QByteArray &name, const QString &path, const QString &target)
    {
        struct stat info;
        if (::fstatat(dirFd, name.constData(), &info, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? true : fail(path, errno); // gone since it was listed
        if (S_ISDIR(info.st_mode))
            return subfolder(dirFd, name, path, target);
        if (S_ISLNK(info.st_mode)) {
            leaveOut(path, u"a symbolic link"_s);
            return true;
        }
        if (!S_ISREG(info.st_mode)) {
            leaveOut(path, u"not a regular file"_s);
            return true;
        }
        if (m_result.overLimit) { // only counted from here on
            ++m_result.files;
            m_result.bytes += info.st_size;
            return true;
        }
        Fd file(::openat(dirFd, name.constData(),
                         O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
        if (file.fd < 0) {
            if (errno == ENOENT)
                return true;
            if (errno == ELOOP) { // swapped for a link since fstatat
                leaveOut(path, u"a symbolic link"_s);
                return true;
            }
            return fail(path, errno);
        }
        if (::fstat(file.fd, &info) != 0)
            return fail(path, errno);
        if (!S_ISREG(info.st_mode)) {
            leaveOut(path, u"not a regular file"_s);
            return true;
        }
        if (info.st_dev != m_device) {
            leaveOut(path, u"on another file system"_s);
            return true;
        }
        ++m_result.files;
        m_result.bytes += info.st_size;
        if (m_maxBytes > 0 && m_result.bytes > m_maxBytes) {
            m_result.overLimit = true;
            return true;
        }
        return stage(file.fd, info.st_size, path, target);
    }

    bool subfolder(int dirFd, const QByteArray &name, const QString &path, const QString &target)
    {
        Fd sub(::openat(dirFd, name.constData(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
        if (sub.fd < 0) {
            if (errno == ENOENT)
                return true;
            if (errno == ELOOP || errno == ENOTDIR) { // swapped since fstatat
                leaveOut(path, u"a symbolic link"_s);
                return true;
            }
            return fail(path, errno);
        }
        struct stat info;
        if (::fstat(sub.fd, &info) != 0)
            return fail(path, errno);
        if (info.st_dev != m_device) {
            leaveOut(path, u"on another file system"_s);
            return true;
        }
        if (!m_result.overLimit && ::mkdir(QFile::encodeName(target).constData(), 0700) != 0)
            return fail(path, errno, target);
        return folder(sub.fd, path, target);
    }

    // The open file into staging: a hard link to the same inode (nothing is copied), or where
    // that fails (another file system, a kernel without /proc) a copy of at most size bytes.
    bool stage(int fd, qint64 size, const QString &path, const QString &target)
    {
        const QByteArray to = QFile::encodeName(target);
        const QByteArray from = "/proc/self/fd/" + QByteArray::number(fd);
        if (::linkat(AT_FDCWD, from.constData(), AT_FDCWD, to.constData(), AT_SYMLINK_FOLLOW) == 0)
            return true;
        Fd out(::open(to.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (out.fd < 0)
            return fail(path, errno, target);
        char buffer[65536];
        qint64 left = size;
        while (left > 0) {
            const ssize_t got = ::read(fd, buffer, size_t(std::min<qint64>(left, sizeof buffer)));
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return fail(path, errno);
            if (got == 0)
                break; // the task shortened it: the digest tells the next upload
            for (ssize_t written = 0; written < got;) {
                const ssize_t put = ::write(out.fd, buffer + written, size_t(got - written));
                if (put < 0 && errno == EINTR)
                    continue;
                if (put < 0)
                    return fail(path, errno, target);
                written += put;
            }
            left -= got;
        }
        return true;
    }

    void leaveOut(const QString &path, const QString &why)
    {
        m_result.leftOut << u"%1 is left out: %2"_s.arg(path, why);
    }

    bool fail(const QString &path, int error, const QString &staged = {})
    {
        m_result.error = staged.isEmpty()
                             ? u"cannot read %1 in DDL_CHECKPOINT_DIR (%2)"_s.arg(
                                   path.isEmpty() ? u"the folder"_s : path, systemError(error))
                             : u"cannot stage %1 as %2 (%3)"_s.arg(path, staged, systemError(error));
        return false;
    }

    CheckpointSnapshot &m_result;
    const qint64 m_maxBytes;
    const dev_t m_device;
};

} // namespace

CheckpointSnapshot snapshotCheckpoint(const QString &folder, const QString &staging, qint64 maxBytes)
{
    CheckpointSnapshot result;
    if (QFileInfo::exists(staging) && !QDir(staging).removeRecursively()) {
        result.error = u"cannot empty the staging folder %1"_s.arg(staging);
        return result;
    }
    if (!QDir().mkpath(staging)) {
        result.error = u"cannot create the staging folder %1"_s.arg(staging);
        return result;
    }
    Fd root(::open(QFile::encodeName(folder).constData(),
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat info;
    if (root.fd < 0 || ::fstat(root.fd, &info) != 0) {
        result.error = u"cannot open DDL_CHECKPOINT_DIR %1 (%2)"_s.arg(folder, systemError(errno));
        return result;
    }
    Walk(result, maxBytes, info.st_dev).folder(root.fd, QString(), staging);
    return result;
}

} // namespace ddl::worker
