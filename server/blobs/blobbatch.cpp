#include "blobbatch.h"

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

// Makes what was written before durable, for the whole filesystem of folder at once.
static Status syncFilesystemOf(const QString &folder)
{
    const int fd = ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = fd >= 0 && ::syncfs(fd) == 0;
    const int error = errno;
    if (fd >= 0)
        ::close(fd);
    if (synced)
        return Ok{};
    return Error::make(ErrorCode::IoError, QStringLiteral("cannot sync %1 to disk: %2")
                                               .arg(folder, QString::fromLocal8Bit(strerror(error))));
}

Status BlobBatch::store(const BlobStorage &storage, const QByteArray &body,
                        const QList<Entry> &entries)
{
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
    // Written as parts first, synced once, then renamed into place: a crash never leaves a
    // partial blob under a digest.
    QList<std::pair<QString, QString>> parts; // part id, digest
    QSet<QString> seen;
    const auto discardParts = [&] {
        for (const auto &[id, digest] : std::as_const(parts))
            storage.discard(id);
    };
    for (const Entry &entry : entries) {
        if (storage.hasBlob(entry.sha256) || seen.contains(entry.sha256))
            continue;
        seen.insert(entry.sha256);
        const QString id = QUuid::createUuid().toString(QUuid::Id128) + QLatin1String(PartSuffix);
        QFile part(storage.partPath(id));
        if (!part.open(QIODevice::WriteOnly)
            || part.write(body.constData() + entry.offset, entry.size) != entry.size) {
            discardParts();
            return Error::make(ErrorCode::IoError, QStringLiteral("cannot write %1: %2")
                                                       .arg(part.fileName(), part.errorString()));
        }
        parts.append({id, entry.sha256});
    }
    if (parts.isEmpty())
        return Ok{};
    if (Status synced =
            syncFilesystemOf(QFileInfo(storage.partPath(parts.first().first)).absolutePath());
        !synced) {
        discardParts();
        return synced;
    }
    for (const auto &[id, digest] : std::as_const(parts)) {
        if (Status moved = storage.moveIntoPlace(id, digest, BlobStorage::Sync::Later); !moved) {
            discardParts();
            return moved;
        }
    }
    // The renames, durable at once.
    return syncFilesystemOf(QFileInfo(storage.blobPath(parts.first().second)).absolutePath());
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
