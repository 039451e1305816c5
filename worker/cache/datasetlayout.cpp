#include "datasetlayout.h"

#include "packaging/datasetmanifest.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QUuid>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

Error ioError(const QString &what, int error)
{
    return Error::make(ErrorCode::IoError,
                       u"%1: %2"_s.arg(what, QString::fromLocal8Bit(std::strerror(error))));
}

// A link that the file system refuses for reasons of its own: a copy does the same job.
bool copyInstead(int error)
{
    return error == EXDEV || error == EMLINK || error == EPERM || error == ENOTSUP ||
           error == ENOSYS;
}

Status copyFile(const QString &from, const QString &to, QFileDevice::Permissions permissions)
{
    if (!QFile::copy(from, to))
        return Error::make(ErrorCode::IoError, u"cannot copy %1 to %2"_s.arg(from, to));
    if (!QFile::setPermissions(to, permissions))
        return Error::make(ErrorCode::IoError, u"cannot set the permissions of %1"_s.arg(to));
    return Ok{};
}

} // namespace

void markUsed(const QString &path)
{
    // UTIME_NOW is allowed on a read-only file for its owner.
    ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), nullptr, 0);
}

void markTreeUsed(const QString &folder)
{
    QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        markUsed(it.next());
    markUsed(folder);
}

Status makeReadOnly(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat info = {};
    if (::stat(native.constData(), &info) != 0)
        return ioError(u"cannot read %1"_s.arg(path), errno);
    if ((info.st_mode & 07777) != 0444 && ::chmod(native.constData(), 0444) != 0)
        return ioError(u"cannot make %1 read-only"_s.arg(path), errno);
    return Ok{};
}

Result<LayoutStats>
layOutDataset(const DatasetManifest &manifest, const QString &blobDir, const QString &destination)
{
    const QFileInfo target(destination);
    const QString partial = target.absolutePath() + u"/.partial-"_s + target.fileName() + u'-' +
                            QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (!QDir().mkpath(partial))
        return Error::make(ErrorCode::IoError, u"cannot create %1"_s.arg(partial));
    auto fail = [&partial](const Error &error) -> Result<LayoutStats> {
        QDir(partial).removeRecursively();
        return error;
    };

    LayoutStats stats;
    QSet<QString> folders;
    for (const ManifestFile &file : manifest.files()) {
        const QString blob = blobDir + u'/' + file.sha256;
        const QString path = partial + u'/' + file.path;
        const QString folder = QFileInfo(path).path();
        if (!folders.contains(folder)) {
            if (!QDir().mkpath(folder))
                return fail(Error::make(ErrorCode::IoError, u"cannot create %1"_s.arg(folder)));
            folders.insert(folder);
        }
        struct stat info = {};
        if (::stat(QFile::encodeName(blob).constData(), &info) != 0)
            return fail(
                ioError(u"blob %1 of %2 is not in the cache"_s.arg(file.sha256, file.path), errno));
        if (info.st_size != file.size) {
            return fail(Error::make(ErrorCode::BadManifest,
                                    u"%1 is %2 bytes in the manifest, its blob %3 has %4"_s.arg(
                                        file.path,
                                        QString::number(file.size),
                                        file.sha256,
                                        QString::number(info.st_size))));
        }
        if (Status readOnly = makeReadOnly(blob); !readOnly)
            return fail(readOnly.error());
        markUsed(blob);

        if (file.executable) {
            const Status copied = copyFile(blob,
                                           path,
                                           QFileDevice::ReadOwner | QFileDevice::ExeOwner |
                                               QFileDevice::ReadGroup | QFileDevice::ExeGroup |
                                               QFileDevice::ReadOther | QFileDevice::ExeOther);
            if (!copied)
                return fail(copied.error());
            ++stats.copies;
            continue;
        }
        if (::link(QFile::encodeName(blob).constData(), QFile::encodeName(path).constData()) == 0) {
            ++stats.links;
            continue;
        }
        const int error = errno;
        if (!copyInstead(error))
            return fail(ioError(u"cannot link %1 to %2"_s.arg(path, blob), error));
        const Status copied = copyFile(
            blob, path, QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther);
        if (!copied)
            return fail(copied.error());
        ++stats.copies;
    }

    if (::rename(QFile::encodeName(partial).constData(),
                 QFile::encodeName(destination).constData()) != 0) {
        const int error = errno;
        // Laid out by someone else meanwhile: theirs is as good.
        if ((error == EEXIST || error == ENOTEMPTY) && QFileInfo(destination).isDir()) {
            QDir(partial).removeRecursively();
            return stats;
        }
        return fail(ioError(u"cannot move the dataset folder into %1"_s.arg(destination), error));
    }
    return stats;
}

} // namespace ddl::worker
