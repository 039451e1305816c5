#include "blobbatch.h"

#include "bloblocator.h"
#include "core/sha256.h"
#include "core/sha256stream.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QUuid>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ddl::server {

static Error badBatch(const QString &message)
{
    return Error::make(ErrorCode::BadRequest,
                       QStringLiteral("blob batch: %1; each blob is the line \"<sha256> <size>\" "
                                      "and then its bytes")
                           .arg(message),
                       QStringLiteral("body"));
}

Result<QList<BlobBatch::Entry>> BlobBatch::parse(const QByteArray &body)
{
    QList<Entry> entries;
    qint64 at = 0;
    while (at < body.size()) {
        if (entries.size() == MaxBlobs) {
            return Error::make(ErrorCode::PayloadTooLarge,
                               QStringLiteral("a batch holds at most %1 blobs").arg(MaxBlobs));
        }
        const qsizetype end = body.indexOf('\n', at);
        // 64 hex digits, a space, at most 7 digits of size.
        if (end < 0 || end - at > 72)
            return badBatch(QStringLiteral("blob %1 has no header line").arg(entries.size() + 1));
        const QList<QByteArray> header = body.mid(at, end - at).split(' ');
        bool sized = false;
        const qint64 size = header.value(1).toLongLong(&sized);
        const QString sha256 = QString::fromLatin1(header.value(0));
        if (header.size() != 2 || !isSha256Hex(sha256) || !sized || size < 0)
            return badBatch(QStringLiteral("blob %1's header is not \"<sha256> <size>\"")
                                .arg(entries.size() + 1));
        if (size > MaxBlobBytes) {
            return Error::make(ErrorCode::PayloadTooLarge,
                               QStringLiteral("blob %1 in the batch has %2 bytes; blobs over %3 "
                                              "bytes go through /v1/uploads")
                                   .arg(sha256)
                                   .arg(size)
                                   .arg(MaxBlobBytes));
        }
        if (end + 1 + size > body.size())
            return badBatch(QStringLiteral("blob %1 is cut short").arg(sha256));
        entries.append(Entry{sha256, end + 1, size});
        at = end + 1 + size;
    }
    return entries;
}

static Error ioError(const QString &what, const QString &path, int error)
{
    return Error::make(ErrorCode::IoError, QStringLiteral("%1 %2: %3")
                                               .arg(what, path, QString::fromLocal8Bit(strerror(error))));
}

// Writes all of bytes at fd's position, through short writes and signals.
static bool writeAll(int fd, const char *bytes, qint64 size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, bytes, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; // else the error would read "Success"
        if (n <= 0)
            return false;
        bytes += n;
        size -= n;
    }
    return true;
}

// One new file instead of one a blob: creating files is what costs on a busy filesystem (an
// ext4 that skips over recently freed inodes), not writing bytes.
Result<BlobBatch::Packed> BlobBatch::store(const BlobStorage &storage, const QByteArray &body,
                                           const QList<Entry> &entries,
                                           const QHash<QString, QString> &recorded)
{
    const QSet<QString> held = BlobLocator::present(storage, recorded);
    for (const Entry &entry : entries) {
        Sha256Stream hash;
        hash.add(QByteArrayView(body).sliced(entry.offset, entry.size));
        if (const QString digest = hash.finishHex(); digest != entry.sha256) {
            return Error::make(ErrorCode::DigestMismatch,
                               QStringLiteral("a blob of the batch declared as %1 has sha256 %2; "
                                              "nothing of the batch was stored")
                                   .arg(entry.sha256, digest),
                               QStringLiteral("sha256"));
        }
    }
    Packed packed;
    QList<const Entry *> fresh;
    qint64 packBytes = 0;
    for (const Entry &entry : entries) {
        if (held.contains(entry.sha256) || packed.offsets.contains(entry.sha256))
            continue;
        packed.offsets.insert(entry.sha256, packBytes);
        if (recorded.contains(entry.sha256))
            packed.repairs.insert(entry.sha256);
        fresh.append(&entry);
        packBytes += entry.size;
    }
    if (fresh.isEmpty())
        return Packed{};
    packed.pack = QUuid::createUuid().toString(QUuid::Id128) + QStringLiteral(".pack");
    const QString path = storage.packPath(packed.pack);
    const QByteArray encoded = QFile::encodeName(path);
    const int fd = ::open(encoded.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return ioError(QStringLiteral("cannot create"), path, errno);
    bool written = true;
    for (const Entry *entry : std::as_const(fresh)) {
        written = writeAll(fd, body.constData() + entry->offset, entry->size);
        if (!written)
            break;
    }
    // fdatasync covers the pack's length too; the folder's sync, its name.
    const bool synced = written && ::fdatasync(fd) == 0;
    const int error = errno;
    ::close(fd);
    if (!synced) {
        ::unlink(encoded.constData());
        return ioError(written ? QStringLiteral("cannot sync") : QStringLiteral("cannot write"),
                       path, error);
    }
    const QString folder = QFileInfo(path).absolutePath();
    const int dirFd =
        ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool named = dirFd >= 0 && ::fsync(dirFd) == 0;
    const int dirError = errno;
    if (dirFd >= 0)
        ::close(dirFd);
    if (!named) {
        ::unlink(encoded.constData());
        return ioError(QStringLiteral("cannot sync"), folder, dirError);
    }
    return packed;
}

void BlobBatch::sweepParts(const BlobStorage &storage)
{
    // Only old ones: another server sharing the data folder may be writing a batch now.
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-3600);
    const QDir uploads(QFileInfo(storage.partPath(QStringLiteral("x"))).absolutePath());
    const QString pattern = QStringLiteral("*") + QLatin1String(PartSuffix) + QStringLiteral(".part");
    for (const QFileInfo &part : uploads.entryInfoList({pattern}, QDir::Files)) {
        if (part.lastModified() < before)
            QFile::remove(part.absoluteFilePath());
    }
}

} // namespace ddl::server
