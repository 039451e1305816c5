#include "directoryarchiver.h"

#include "archivepathcheck.h"
#include "tarzstwriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace ddl {

namespace {

constexpr qint64 ReadChunkSize = 64 * 1024;

struct Item
{
    enum Kind { Directory, File, Symlink };
    QByteArray path; // relative, UTF-8; directories end with '/'
    QString absolutePath;
    Kind kind = File;
    int permissions = 0644;
    QByteArray linkTarget;
};

int unixPermissions(QFileDevice::Permissions permissions)
{
    int mode = 0;
    if (permissions & QFileDevice::ReadOwner)
        mode |= 0400;
    if (permissions & QFileDevice::WriteOwner)
        mode |= 0200;
    if (permissions & QFileDevice::ExeOwner)
        mode |= 0100;
    if (permissions & QFileDevice::ReadGroup)
        mode |= 0040;
    if (permissions & QFileDevice::WriteGroup)
        mode |= 0020;
    if (permissions & QFileDevice::ExeGroup)
        mode |= 0010;
    if (permissions & QFileDevice::ReadOther)
        mode |= 0004;
    if (permissions & QFileDevice::WriteOther)
        mode |= 0002;
    if (permissions & QFileDevice::ExeOther)
        mode |= 0001;
    return mode;
}

// The target text of a symlink as stored, not resolved (Qt 6.4 has no QFileInfo::readSymLink).
QByteArray readLinkTarget(const QString &path)
{
#ifdef Q_OS_UNIX
    QByteArray buffer(4096, Qt::Uninitialized);
    const ssize_t length = ::readlink(
        QFile::encodeName(path).constData(), buffer.data(), static_cast<size_t>(buffer.size()));
    if (length < 0 || length >= buffer.size())
        return {};
    buffer.truncate(length);
    return buffer;
#else
    Q_UNUSED(path);
    return {};
#endif
}

bool isInside(const QString &path, const QString &root)
{
    return path == root || path.startsWith(root + u'/');
}

// Collects every entry below root, with the reasons for anything left out.
class FolderScanner
{
public:
    FolderScanner(const QString &root, const QStringList &skippedNames)
        : m_root(root)
        , m_canonicalRoot(QFileInfo(root).canonicalFilePath())
        , m_skippedNames(skippedNames)
    {
    }

    Status scan()
    {
        QList<QString> pending{QString()};
        while (!pending.isEmpty()) {
            const QString relativeDir = pending.takeLast();
            const QString absoluteDir =
                relativeDir.isEmpty() ? m_root : m_root + u'/' + relativeDir;
            const QFileInfo dirInfo(absoluteDir);
            // QDir lists an unreadable folder as empty; say so instead of losing its files.
            if (!dirInfo.isReadable() || !dirInfo.isExecutable())
                return Error::make(ErrorCode::IoError,
                                   QStringLiteral("cannot read the folder %1: permission denied")
                                       .arg(absoluteDir));
            const QFileInfoList children =
                QDir(absoluteDir)
                    .entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden |
                                   QDir::System);
            for (const QFileInfo &child : children) {
                if (m_skippedNames.contains(child.fileName()))
                    continue;
                const QString relative = relativeDir.isEmpty()
                                             ? child.fileName()
                                             : relativeDir + u'/' + child.fileName();
                if (const Status added = add(child, relative); !added)
                    return added;
                if (!child.isSymLink() && child.isDir())
                    pending.append(relative);
            }
        }
        std::sort(m_items.begin(), m_items.end(), [](const Item &a, const Item &b) {
            return a.path < b.path;
        });
        return Ok{};
    }

    QList<Item> &items() { return m_items; }
    const QStringList &warnings() const { return m_warnings; }

private:
    Status add(const QFileInfo &info, const QString &relative)
    {
        Item item;
        item.path = relative.toUtf8();
        item.absolutePath = info.absoluteFilePath();
        if (info.isSymLink()) {
            item.kind = Item::Symlink;
            item.linkTarget = readLinkTarget(item.absolutePath);
            QString problem = item.linkTarget.isEmpty()
                                  ? QStringLiteral("its target cannot be read")
                                  : archivepath::symlinkTargetProblem(item.path, item.linkTarget);
            // The text may look harmless while a symlink on the way leaves the folder.
            const QString resolved = info.canonicalFilePath();
            if (problem.isEmpty() && !resolved.isEmpty() && !isInside(resolved, m_canonicalRoot))
                problem = QStringLiteral("it resolves to %1, outside the folder").arg(resolved);
            if (!problem.isEmpty()) {
                m_warnings.append(
                    QStringLiteral("symlink %1 is not archived: %2").arg(relative, problem));
                return Ok{};
            }
        } else if (info.isDir()) {
            item.kind = Item::Directory;
            item.path += '/';
            item.permissions = unixPermissions(info.permissions());
        } else if (info.isFile()) {
            item.kind = Item::File;
            item.permissions = unixPermissions(info.permissions());
        } else {
            m_warnings.append(QStringLiteral("%1 is not archived: it is not a regular file, "
                                             "folder or symlink")
                                  .arg(relative));
            return Ok{};
        }
        m_items.append(std::move(item));
        return Ok{};
    }

    QString m_root;
    QString m_canonicalRoot;
    QStringList m_skippedNames;
    QList<Item> m_items;
    QStringList m_warnings;
};

Status copyFile(const Item &item, TarZstWriter &writer, qint64 *bytes)
{
    QFile file(item.absolutePath);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot read %1: %2").arg(item.absolutePath, file.errorString()));
    const qint64 size = file.size();
    if (const Status begun = writer.beginFile(item.path, item.permissions, size, 0); !begun)
        return begun;
    QByteArray buffer(ReadChunkSize, Qt::Uninitialized);
    qint64 copied = 0;
    while (copied < size) {
        const qint64 wanted = std::min<qint64>(ReadChunkSize, size - copied);
        const qint64 got = file.read(buffer.data(), wanted);
        if (got < 0)
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("cannot read %1: %2").arg(item.absolutePath, file.errorString()));
        if (got == 0)
            break;
        if (const Status written = writer.writeData(buffer.constData(), got); !written)
            return written;
        copied += got;
    }
    if (copied != size || !file.atEnd())
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("%1 changed size while it was archived; archive the "
                                          "folder again once nothing writes to it")
                               .arg(item.absolutePath));
    *bytes += size;
    return Ok{};
}

} // namespace

Result<ArchiveInfo> DirectoryArchiver::archive(const QString &folder,
                                               const QString &archivePath) const
{
    const QFileInfo folderInfo(folder);
    if (!folderInfo.isDir())
        return Error::make(ErrorCode::NotFound, QStringLiteral("%1 is not a folder").arg(folder));
    const QString root = folderInfo.canonicalFilePath();
    const QFileInfo archiveInfo(archivePath);
    const QString archiveDir = archiveInfo.absoluteDir().canonicalPath();
    const QString archiveAbsolute = archiveDir + u'/' + archiveInfo.fileName();
    if (!archiveDir.isEmpty() && isInside(archiveAbsolute, root))
        return Error::make(ErrorCode::InvalidArgument,
                           QStringLiteral("the archive %1 would lie inside the folder %2 it packs; "
                                          "write it somewhere else")
                               .arg(archivePath, folder));

    FolderScanner scanner(root, m_skippedNames);
    if (const Status scanned = scanner.scan(); !scanned)
        return scanned.error();

    TarZstWriter writer;
    if (const Status opened = writer.open(archivePath); !opened)
        return opened.error();
    ArchiveInfo info;
    for (const Item &item : scanner.items()) {
        Status written = Ok{};
        switch (item.kind) {
        case Item::Directory:
            written = writer.addDirectory(item.path, item.permissions, 0);
            break;
        case Item::Symlink:
            written = writer.addSymlink(item.path, item.linkTarget, 0);
            ++info.fileCount;
            break;
        case Item::File:
            written = copyFile(item, writer, &info.totalBytes);
            ++info.fileCount;
            break;
        }
        if (!written)
            return written.error();
    }
    Result<WrittenArchive> archive = writer.commit();
    if (!archive)
        return archive.error();
    info.archivePath = archive->path;
    info.sha256 = archive->sha256;
    info.size = archive->size;
    info.warnings = scanner.warnings();
    return info;
}

} // namespace ddl
