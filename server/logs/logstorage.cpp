#include "logstorage.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ddl::server {

LogStorage::LogStorage(const QString &dataDir)
    : m_dir(QDir(dataDir).filePath(QStringLiteral("logs")))
{}

Status LogStorage::prepare() const
{
    if (!QDir().mkpath(m_dir))
        return Error::make(QStringLiteral("io_error"), QStringLiteral("cannot create %1").arg(m_dir));
    return Ok{};
}

QString LogStorage::pathFor(qint64 taskId) const
{
    return QDir(m_dir).filePath(QString::number(taskId) + QStringLiteral(".log"));
}

qint64 LogStorage::size(qint64 taskId) const
{
    return QFileInfo(pathFor(taskId)).size();
}

Result<qint64> LogStorage::append(qint64 taskId, qint64 offset, const QByteArray &bytes) const
{
    if (bytes.size() > MaxAppendBytes) {
        return Error::make(QStringLiteral("payload_too_large"),
                           QStringLiteral("a log batch may hold at most %1 bytes").arg(MaxAppendBytes));
    }
    QFile file(pathFor(taskId));
    if (!file.open(QIODevice::ReadWrite | QIODevice::Append)) {
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("cannot write %1: %2").arg(file.fileName(),
                                                                     file.errorString()));
    }
    const qint64 current = file.size();
    if (offset + bytes.size() <= current)
        return current; // a resend of what is already stored
    if (offset > current) {
        Error error = Error::make(QStringLiteral("offset_mismatch"),
                                  QStringLiteral("log batch at offset %1 but the log holds %2 "
                                                 "bytes; send from %2")
                                      .arg(offset)
                                      .arg(current),
                                  QStringLiteral("offset"));
        error.details.insert(QStringLiteral("offset"), current);
        return error;
    }
    // A resend that overlaps what is stored contributes only its new tail.
    const QByteArray tail = bytes.mid(current - offset);
    if (file.write(tail) != tail.size()) {
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("cannot write %1: %2").arg(file.fileName(),
                                                                     file.errorString()));
    }
    return current + tail.size();
}

Result<LogSlice> LogStorage::read(qint64 taskId, qint64 offset, qint64 limit) const
{
    LogSlice slice;
    slice.offset = std::max<qint64>(0, offset);
    QFile file(pathFor(taskId));
    if (!file.open(QIODevice::ReadOnly))
        return slice; // nothing written yet
    slice.size = file.size();
    if (slice.offset >= slice.size)
        return slice;
    file.seek(slice.offset);
    slice.bytes = file.read(std::clamp<qint64>(limit, 1, MaxReadBytes));
    return slice;
}

} // namespace ddl::server
