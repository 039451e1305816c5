#include "blobstorage.h"

#include "core/sha256.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <cstring>
#include <unistd.h>

namespace ddl::server {

BlobStorage::BlobStorage(const QString &dataDir)
    : m_dataDir(dataDir)
{}

Status BlobStorage::prepare() const
{
    for (const char *sub : {"blobs", "uploads", "packs"}) {
        if (!QDir().mkpath(QDir(m_dataDir).filePath(QString::fromLatin1(sub)))) {
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("cannot create %1/%2").arg(m_dataDir, QLatin1String(sub)));
        }
    }
    // packs/ is newer than the data folders of older servers: its name must survive a crash
    // before a pack recorded in it does.
    const int dirFd =
        ::open(QFile::encodeName(m_dataDir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = dirFd >= 0 && ::fsync(dirFd) == 0;
    if (dirFd >= 0)
        ::close(dirFd);
    if (!synced) {
        return Error::make(ErrorCode::IoError, QStringLiteral("cannot sync %1: %2")
                                                   .arg(m_dataDir, QString::fromLocal8Bit(
                                                                       strerror(errno))));
    }
    return Ok{};
}

QString BlobStorage::blobPath(const QString &sha256) const
{
    return QDir(m_dataDir).filePath(QStringLiteral("blobs/") + sha256.left(2) + u'/' + sha256);
}

QString BlobStorage::partPath(const QString &uploadId) const
{
    return QDir(m_dataDir).filePath(QStringLiteral("uploads/") + uploadId + QStringLiteral(".part"));
}

QString BlobStorage::packPath(const QString &packName) const
{
    return QDir(m_dataDir).filePath(QStringLiteral("packs/") + packName);
}

bool BlobStorage::hasFile(const QString &sha256) const
{
    return QFile::exists(blobPath(sha256));
}

bool BlobStorage::hasPack(const QString &packName) const
{
    return QFile::exists(packPath(packName));
}

static Error ioError(const QString &what, const QString &path)
{
    return Error::make(
        ErrorCode::IoError,
        QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(strerror(errno))));
}

Result<int> BlobStorage::openPartAt(const QString &uploadId, qint64 offset) const
{
    const QString path = partPath(uploadId);
    // Only the first chunk creates the part file. One that is gone or shorter at a later offset
    // lost bytes the store counts as received (a crash, a hand that removed it): going on would
    // store zeros in their place under a digest that still matches (the hash state is saved, not
    // read again), so the upload must start over.
    const int fd = ::open(QFile::encodeName(path).constData(),
                          O_WRONLY | O_CLOEXEC | (offset == 0 ? O_CREAT : 0), 0600);
    struct stat st;
    const bool lost = (fd < 0 && errno == ENOENT)
                      || (fd >= 0 && offset > 0 && (::fstat(fd, &st) != 0 || st.st_size < offset));
    if (lost) {
        if (fd >= 0)
            ::close(fd);
        return Error::make(ErrorCode::NotFound,
                           QStringLiteral("the bytes received for upload %1 are gone from the "
                                          "server; start the upload again")
                               .arg(uploadId));
    }
    if (fd < 0)
        return ioError(QStringLiteral("cannot open"), path);
    if (::ftruncate(fd, offset) != 0) {
        ::close(fd);
        return ioError(QStringLiteral("cannot cut back"), path);
    }
    return fd;
}

Status BlobStorage::moveIntoPlace(const QString &uploadId, const QString &sha256, Sync sync) const
{
    const QString part = partPath(uploadId);
    const QString target = blobPath(sha256);
    QDir().mkpath(QFileInfo(target).absolutePath());
    if (::rename(QFile::encodeName(part).constData(), QFile::encodeName(target).constData()) != 0)
        return ioError(QStringLiteral("cannot move the upload to"), target);
    if (sync == Sync::Later)
        return Ok{};
    // The rename is durable only once its directory is synced.
    const int dirFd = ::open(QFile::encodeName(QFileInfo(target).absolutePath()).constData(),
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return Ok{};
}

void BlobStorage::discard(const QString &uploadId) const
{
    QFile::remove(partPath(uploadId));
}

} // namespace ddl::server
