#include "archiveextractor.h"

#include "archivepathcheck.h"
#include "utf8locale.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <memory>

namespace ddl {

namespace {

constexpr qint64 ReadChunkSize = 64 * 1024;

struct ArchiveReadFree
{
    void operator()(struct archive *a) const { archive_read_free(a); }
};
struct ArchiveWriteFree
{
    void operator()(struct archive *a) const { archive_write_free(a); }
};

// libarchive's source: the archive file read through QFile in 64 KiB pieces.
struct Source
{
    QFile file;
    QByteArray buffer{ReadChunkSize, Qt::Uninitialized};

    static la_ssize_t read(struct archive *archive, void *clientData, const void **block)
    {
        auto *source = static_cast<Source *>(clientData);
        const qint64 got = source->file.read(source->buffer.data(), source->buffer.size());
        if (got < 0) {
            archive_set_error(archive, EIO, "%s", source->file.errorString().toUtf8().constData());
            return -1;
        }
        *block = source->buffer.constData();
        return static_cast<la_ssize_t>(got);
    }
};

QString libarchiveMessage(struct archive *archive)
{
    const char *message = archive_error_string(archive);
    return message ? QString::fromUtf8(message) : QStringLiteral("unknown libarchive failure");
}

QByteArray entryPathBytes(struct archive_entry *entry)
{
    if (const char *utf8 = archive_entry_pathname_utf8(entry))
        return QByteArray(utf8);
    const char *raw = archive_entry_pathname(entry);
    return raw ? QByteArray(raw) : QByteArray();
}

QByteArray symlinkTargetBytes(struct archive_entry *entry)
{
    if (const char *utf8 = archive_entry_symlink_utf8(entry))
        return QByteArray(utf8);
    const char *raw = archive_entry_symlink(entry);
    return raw ? QByteArray(raw) : QByteArray();
}

QString forbiddenTypeName(unsigned int type)
{
    switch (type) {
    case AE_IFCHR:
        return QStringLiteral("character devices are not allowed");
    case AE_IFBLK:
        return QStringLiteral("block devices are not allowed");
    case AE_IFIFO:
        return QStringLiteral("FIFOs are not allowed");
    case AE_IFSOCK:
        return QStringLiteral("sockets are not allowed");
    default:
        return QStringLiteral("entries of type %1 are not allowed").arg(type, 0, 8);
    }
}

// One extraction run: reads entries, checks each, then lets libarchive write it.
class Extraction
{
public:
    Extraction(const ExtractionLimits &limits, const QString &archivePath, const QString &root)
        : m_limits(limits)
        , m_archivePath(archivePath)
        , m_root(QFile::encodeName(root))
    {
    }

    Result<ExtractionInfo> run()
    {
        m_source.file.setFileName(m_archivePath);
        if (!m_source.file.open(QIODevice::ReadOnly))
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot read %1: %2")
                                   .arg(m_archivePath, m_source.file.errorString()));

        m_reader.reset(archive_read_new());
        archive_read_support_filter_zstd(m_reader.get());
        archive_read_support_format_tar(m_reader.get());
        if (archive_read_open(m_reader.get(), &m_source, nullptr, Source::read, nullptr) !=
            ARCHIVE_OK)
            return corrupt();

        m_writer.reset(archive_write_disk_new());
        // NOABSOLUTEPATHS cannot be set: every path handed to libarchive is absolute (the
        // destination prefixed, since changing the working folder is not thread-safe). Relative
        // entry paths are enforced by checkEntry() instead.
        archive_write_disk_set_options(m_writer.get(),
                                       ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                           ARCHIVE_EXTRACT_SECURE_SYMLINKS);

        for (;;) {
            struct archive_entry *entry = nullptr;
            const int rc = archive_read_next_header(m_reader.get(), &entry);
            if (rc == ARCHIVE_EOF)
                break;
            if (rc < ARCHIVE_WARN)
                return corrupt();
            if (const Status done = extractEntry(entry); !done)
                return done.error();
        }
        if (archive_write_close(m_writer.get()) != ARCHIVE_OK)
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot finish extracting %1: %2")
                                   .arg(m_archivePath, libarchiveMessage(m_writer.get())));
        return m_info;
    }

private:
    Status extractEntry(struct archive_entry *entry)
    {
        if (++m_info.entryCount > m_limits.maxEntries)
            return Error::make(ErrorCode::ArchiveTooLarge,
                               QStringLiteral("%1 has more than %2 entries, the limit")
                                   .arg(m_archivePath)
                                   .arg(m_limits.maxEntries));

        const QByteArray rawPath = entryPathBytes(entry);
        if (const QString problem = archivepath::entryPathProblem(rawPath); !problem.isEmpty())
            return unsafe(rawPath, problem);
        const QByteArrayList parts = archivepath::components(rawPath);
        const QByteArray path = parts.join('/');
        const unsigned int type = archive_entry_filetype(entry);

        if (archive_entry_hardlink(entry))
            return unsafe(rawPath, QStringLiteral("hard links are not allowed"));
        if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
            return unsafe(rawPath, forbiddenTypeName(type));
        if (path.isEmpty()) {
            if (type == AE_IFDIR)
                return Ok{}; // "./": the destination itself
            return unsafe(rawPath, QStringLiteral("empty path"));
        }
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QByteArray parent = parts.first(i).join('/');
            if (m_symlinks.contains(parent))
                return unsafe(rawPath,
                              QStringLiteral("path goes through the symlink %1")
                                  .arg(QString::fromUtf8(parent)));
        }

        qint64 size = 0;
        if (type == AE_IFLNK) {
            const QByteArray target = symlinkTargetBytes(entry);
            if (const QString problem = archivepath::symlinkTargetProblem(path, target);
                !problem.isEmpty())
                return unsafe(rawPath, problem);
            archive_entry_copy_symlink(entry, target.constData());
        } else {
            // Owner read/write(/search) always; never setuid, setgid or sticky bits.
            const mode_t ownerBits = type == AE_IFDIR ? 0700 : 0600;
            archive_entry_set_perm(entry, (archive_entry_perm(entry) & 0777) | ownerBits);
        }
        if (type == AE_IFREG) {
            size = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
            if (size < 0 || size > m_limits.maxTotalBytes - m_info.totalBytes)
                return tooManyBytes();
        }

        const QByteArray diskPath = m_root + '/' + path;
        archive_entry_copy_pathname(entry, diskPath.constData());
        if (archive_write_header(m_writer.get(), entry) < ARCHIVE_WARN)
            return unsafe(rawPath, libarchiveMessage(m_writer.get()));
        if (type == AE_IFREG && size > 0) {
            if (const Status copied = copyData(rawPath, size); !copied)
                return copied;
        }
        if (archive_write_finish_entry(m_writer.get()) < ARCHIVE_WARN)
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot extract %1 from %2: %3")
                                   .arg(QString::fromUtf8(rawPath),
                                        m_archivePath,
                                        libarchiveMessage(m_writer.get())));

        if (type == AE_IFLNK)
            m_symlinks.insert(path);
        else
            m_symlinks.remove(path); // replaced on disk by a file or folder
        if (type == AE_IFREG) {
            ++m_info.fileCount;
            m_info.totalBytes += size;
        }
        return Ok{};
    }

    Status copyData(const QByteArray &rawPath, qint64 size)
    {
        for (;;) {
            const void *block = nullptr;
            size_t length = 0;
            la_int64_t offset = 0;
            const int rc = archive_read_data_block(m_reader.get(), &block, &length, &offset);
            if (rc == ARCHIVE_EOF)
                return Ok{};
            if (rc < ARCHIVE_WARN)
                return corrupt();
            // The header's size was checked; data past it would break the cap.
            if (offset < 0 || offset + static_cast<qint64>(length) > size)
                return unsafe(rawPath, QStringLiteral("data runs past the declared size"));
            if (archive_write_data_block(m_writer.get(), block, length, offset) < ARCHIVE_WARN)
                return Error::make(ErrorCode::IoError,
                                   QStringLiteral("cannot write %1 from %2: %3")
                                       .arg(QString::fromUtf8(rawPath),
                                            m_archivePath,
                                            libarchiveMessage(m_writer.get())));
        }
    }

    Error unsafe(const QByteArray &rawPath, const QString &reason) const
    {
        return Error::make(ErrorCode::UnsafeArchive,
                           QStringLiteral("%1 was not extracted: entry '%2' is refused: %3")
                               .arg(m_archivePath, QString::fromUtf8(rawPath), reason));
    }

    Error tooManyBytes() const
    {
        return Error::make(ErrorCode::ArchiveTooLarge,
                           QStringLiteral("%1 holds more than %2 bytes of files, the limit")
                               .arg(m_archivePath)
                               .arg(m_limits.maxTotalBytes));
    }

    Error corrupt() const
    {
        return Error::make(ErrorCode::CorruptArchive,
                           QStringLiteral("cannot read %1 as a tar or tar.zst archive: %2")
                               .arg(m_archivePath, libarchiveMessage(m_reader.get())));
    }

    ExtractionLimits m_limits;
    QString m_archivePath;
    QByteArray m_root;
    Source m_source;
    std::unique_ptr<struct archive, ArchiveReadFree> m_reader;
    std::unique_ptr<struct archive, ArchiveWriteFree> m_writer;
    QSet<QByteArray> m_symlinks; // relative paths of the symlinks extracted so far
    ExtractionInfo m_info;
};

bool isEmptyFolder(const QString &path)
{
    return QDir(path).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden |
                              QDir::System);
}

void removeContents(const QString &root)
{
    const QFileInfoList children = QDir(root).entryInfoList(
        QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
    for (const QFileInfo &child : children) {
        if (child.isDir() && !child.isSymLink())
            QDir(child.absoluteFilePath()).removeRecursively();
        else
            QFile::remove(child.absoluteFilePath());
    }
}

} // namespace

ArchiveExtractor::ArchiveExtractor(const ExtractionLimits &limits)
    : m_limits(limits)
{
}

Result<ExtractionInfo> ArchiveExtractor::extract(const QString &archivePath,
                                                 const QString &destination) const
{
    const QFileInfo destinationInfo(destination);
    bool created = false;
    if (destinationInfo.exists() || destinationInfo.isSymLink()) {
        if (!destinationInfo.isDir())
            return Error::make(
                ErrorCode::DestinationNotEmpty,
                QStringLiteral("cannot extract into %1: it is not a folder").arg(destination));
        if (!isEmptyFolder(destination))
            return Error::make(
                ErrorCode::DestinationNotEmpty,
                QStringLiteral("cannot extract into %1: the folder is not empty").arg(destination));
    } else {
        if (!QDir().mkpath(destination))
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot create the folder %1").arg(destination));
        created = true;
    }
    // No symlink may lie on the way to the destination, or SECURE_SYMLINKS would refuse it.
    const QString root = QFileInfo(destination).canonicalFilePath();
    if (root.isEmpty())
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot resolve the folder %1").arg(destination));

    Result<ExtractionInfo> result = [&]() {
        const ScopedUtf8Locale utf8; // around every libarchive call, the frees included
        return Extraction(m_limits, archivePath, root).run();
    }();
    if (!result) {
        // Leave the destination as it was: gone if we made it, empty if it was given empty.
        if (created)
            QDir(root).removeRecursively();
        else
            removeContents(root);
    }
    return result;
}

} // namespace ddl
