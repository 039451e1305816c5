#include "tarzstwriter.h"

#include "utf8locale.h"

#include <QCryptographicHash>
#include <QSaveFile>

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>

namespace ddl {

struct TarZstWriter::Private
{
    struct archive *archive = nullptr;
    QSaveFile file;
    QCryptographicHash hash{QCryptographicHash::Sha256};
    qint64 size = 0;
    QString path;

    // libarchive's sink: every compressed byte goes to the file and into the hash.
    static la_ssize_t
    writeToFile(struct archive *archive, void *clientData, const void *buffer, size_t length)
    {
        auto *d = static_cast<Private *>(clientData);
        const char *bytes = static_cast<const char *>(buffer);
        if (d->file.write(bytes, static_cast<qint64>(length)) != static_cast<qint64>(length)) {
            archive_set_error(archive, EIO, "%s", d->file.errorString().toUtf8().constData());
            return -1;
        }
        d->hash.addData(QByteArrayView(bytes, static_cast<qsizetype>(length)));
        d->size += static_cast<qint64>(length);
        return static_cast<la_ssize_t>(length);
    }

    ~Private()
    {
        const ScopedUtf8Locale utf8;
        if (archive)
            archive_write_free(archive);
    }

    Error archiveError(const QString &what) const
    {
        const char *message = archive ? archive_error_string(archive) : nullptr;
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot write %1 (%2): %3")
                               .arg(path,
                                    what,
                                    message ? QString::fromUtf8(message)
                                            : QStringLiteral("unknown libarchive failure")));
    }

    Status writeEntry(const QByteArray &entryPath,
                      unsigned int type,
                      int permissions,
                      qint64 entrySize,
                      qint64 mtime,
                      const QByteArray &target)
    {
        if (!archive)
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("archive writer used before open()"));
        const ScopedUtf8Locale utf8;
        struct archive_entry *entry = archive_entry_new();
        archive_entry_set_pathname_utf8(entry, entryPath.constData());
        archive_entry_set_filetype(entry, type);
        archive_entry_set_perm(entry, static_cast<mode_t>(permissions & 07777));
        archive_entry_set_size(entry, entrySize);
        archive_entry_set_mtime(entry, static_cast<time_t>(mtime), 0);
        archive_entry_set_uid(entry, 0);
        archive_entry_set_gid(entry, 0);
        if (type == AE_IFLNK)
            archive_entry_set_symlink_utf8(entry, target.constData());
        const int rc = archive_write_header(archive, entry);
        archive_entry_free(entry);
        if (rc < ARCHIVE_WARN)
            return archiveError(QString::fromUtf8(entryPath));
        return Ok{};
    }
};

TarZstWriter::TarZstWriter()
    : d(std::make_unique<Private>())
{
}

TarZstWriter::~TarZstWriter() = default; // QSaveFile discards an uncommitted file

Status TarZstWriter::open(const QString &path)
{
    const ScopedUtf8Locale utf8;
    d->path = path;
    d->file.setFileName(path);
    if (!d->file.open(QIODevice::WriteOnly))
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot create %1: %2").arg(path, d->file.errorString()));
    d->archive = archive_write_new();
    if (archive_write_set_format_pax_restricted(d->archive) != ARCHIVE_OK ||
        archive_write_add_filter_zstd(d->archive) != ARCHIVE_OK
        // No padding of the compressed stream to a 10 KiB block: the file ends where zstd does.
        || archive_write_set_bytes_in_last_block(d->archive, 1) != ARCHIVE_OK)
        return d->archiveError(QStringLiteral("setting up tar.zst"));
    if (archive_write_open2(d->archive, d.get(), nullptr, Private::writeToFile, nullptr, nullptr) !=
        ARCHIVE_OK)
        return d->archiveError(QStringLiteral("opening"));
    return Ok{};
}

Status TarZstWriter::addDirectory(const QByteArray &path, int permissions, qint64 mtime)
{
    const QByteArray name = path.endsWith('/') ? path : path + '/';
    return d->writeEntry(name, AE_IFDIR, permissions, 0, mtime, {});
}

Status TarZstWriter::addSymlink(const QByteArray &path, const QByteArray &target, qint64 mtime)
{
    return d->writeEntry(path, AE_IFLNK, 0777, 0, mtime, target);
}

Status TarZstWriter::beginFile(const QByteArray &path, int permissions, qint64 size, qint64 mtime)
{
    return d->writeEntry(path, AE_IFREG, permissions, size, mtime, {});
}

Status TarZstWriter::writeData(const char *data, qint64 size)
{
    const ScopedUtf8Locale utf8;
    while (size > 0) {
        const la_ssize_t written = archive_write_data(d->archive, data, static_cast<size_t>(size));
        if (written <= 0)
            return d->archiveError(QStringLiteral("writing file data"));
        data += written;
        size -= written;
    }
    return Ok{};
}

Result<WrittenArchive> TarZstWriter::commit()
{
    if (!d->archive)
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("archive writer committed before open()"));
    const ScopedUtf8Locale utf8;
    if (archive_write_close(d->archive) != ARCHIVE_OK)
        return d->archiveError(QStringLiteral("finishing"));
    archive_write_free(d->archive);
    d->archive = nullptr;
    if (!d->file.commit())
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot save %1: %2").arg(d->path, d->file.errorString()));
    return WrittenArchive{d->path, QString::fromLatin1(d->hash.result().toHex()), d->size};
}

} // namespace ddl
