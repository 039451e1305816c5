#include "logstorage.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ddl::server {

LogStorage::LogStorage(const QString &dataDir)
    : m_dir(QDir(dataDir).filePath(QStringLiteral("logs")))
{}

Status LogStorage::prepare() const
{
    if (!QDir().mkpath(m_dir))
        return Error::make(ErrorCode::IoError, QStringLiteral("cannot create %1").arg(m_dir));
    return Ok{};
}

Result<LogStream> requestedLogStream(const QUrlQuery &query)
{
    const QString name = query.queryItemValue(u"stream"_s, QUrl::FullyDecoded);
    const std::optional<LogStream> stream = parseLogStream(name);
    if (!stream) {
        return Error::make(ErrorCode::BadRequest,
                           u"stream must be all, stdout or stderr, not \"%1\""_s.arg(name.left(64)),
                           u"stream"_s);
    }
    return *stream;
}

QString LogStorage::path(qint64 taskId, LogStream stream) const
{
    QString name = QString::number(taskId);
    if (stream == LogStream::Stdout)
        name += u".stdout"_s;
    else if (stream == LogStream::Stderr)
        name += u".stderr"_s;
    return QDir(m_dir).filePath(name + u".log"_s);
}

qint64 LogStorage::size(qint64 taskId, LogStream stream) const
{
    return QFileInfo(path(taskId, stream)).size();
}

Result<QList<LogSegment>> LogBatch::parseSegments(const QString &text, qint64 bodySize)
{
    QList<LogSegment> segments;
    qint64 total = 0;
    const QStringList parts = text.split(u',', Qt::SkipEmptyParts);
    if (parts.size() > LogStorage::MaxSegments) {
        return Error::make(
            ErrorCode::BadRequest,
            u"a log batch may have at most %1 segments, got %2"_s.arg(LogStorage::MaxSegments)
                .arg(parts.size()),
            u"streams"_s);
    }
    for (const QString &part : parts) {
        LogSegment segment;
        const QChar kind = part.at(0);
        if (kind == u'o')
            segment.target = LogSegment::Target::Stdout;
        else if (kind == u'e')
            segment.target = LogSegment::Target::Stderr;
        else if (kind == u'w')
            segment.target = LogSegment::Target::MergedOnly;
        else
            return Error::make(ErrorCode::BadRequest,
                               u"log segment \"%1\" must start with o (stdout), e (stderr) or w "
                               u"(merged log only)"_s.arg(part.left(32)),
                               u"streams"_s);
        bool ok = false;
        segment.length = part.mid(1).toLongLong(&ok);
        if (!ok || segment.length <= 0)
            return Error::make(ErrorCode::BadRequest,
                               u"log segment \"%1\" needs a positive length"_s.arg(part.left(32)),
                               u"streams"_s);
        // Compared before adding, so no list of huge lengths can wrap the sum around.
        if (segment.length > bodySize - total) {
            return Error::make(
                ErrorCode::BadRequest,
                u"the log segments cover more than the batch's %1 bytes"_s.arg(bodySize),
                u"streams"_s);
        }
        total += segment.length;
        segments.append(segment);
    }
    if (total != bodySize) {
        return Error::make(
            ErrorCode::BadRequest,
            u"the log segments cover %1 bytes but the batch has %2"_s.arg(total).arg(bodySize),
            u"streams"_s);
    }
    return segments;
}

// Appends bytes at offset to one file: a resend of bytes already there adds nothing, one that
// overlaps the end adds only its new tail. The caller checked that offset is not past the end.
static Result<qint64> appendAt(const QString &path, qint64 offset, const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return QFileInfo(path).size();
    QFile file(path);
    if (!file.open(QIODevice::ReadWrite | QIODevice::Append)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot write %1: %2"_s.arg(file.fileName(), file.errorString()));
    }
    const qint64 current = file.size();
    if (offset + bytes.size() <= current)
        return current; // a resend of what is already stored
    if (offset > current) {
        Error error = Error::make(
            ErrorCode::OffsetMismatch,
            u"log batch at offset %1 but the log holds %2 bytes; send from %2"_s.arg(offset).arg(
                current),
            u"offset"_s);
        error.details.insert(u"offset"_s, current);
        return error;
    }
    // A resend that overlaps what is stored contributes only its new tail.
    const QByteArray tail = bytes.mid(current - offset);
    if (file.write(tail) != tail.size()) {
        return Error::make(ErrorCode::IoError,
                           u"cannot write %1: %2"_s.arg(file.fileName(), file.errorString()));
    }
    return current + tail.size();
}

Result<LogOffsets> LogStorage::append(qint64 taskId, const LogBatch &batch) const
{
    if (batch.bytes.size() > MaxAppendBytes) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           u"a log batch may hold at most %1 bytes"_s.arg(MaxAppendBytes));
    }
    const QString mergedPath = path(taskId);
    const QString stdoutPath = path(taskId, LogStream::Stdout);
    const QString stderrPath = path(taskId, LogStream::Stderr);
    LogOffsets held{QFileInfo(mergedPath).size(), QFileInfo(stdoutPath).size(),
                    QFileInfo(stderrPath).size()};
    const bool behind = batch.offset > held.merged
                        || (batch.tagged
                            && (batch.stdoutOffset > held.stdoutSize
                                || batch.stderrOffset > held.stderrSize));
    if (behind) {
        // Nothing is written: the worker goes back to a point that every file holds.
        Error error = Error::make(
            ErrorCode::OffsetMismatch,
            batch.tagged
                ? u"log batch at offset %1 (stdout %2, stderr %3) but the logs hold %4 (stdout %5, "
                  u"stderr %6) bytes; send from %4"_s.arg(batch.offset)
                      .arg(batch.stdoutOffset)
                      .arg(batch.stderrOffset)
                      .arg(held.merged)
                      .arg(held.stdoutSize)
                      .arg(held.stderrSize)
                : u"log batch at offset %1 but the log holds %2 bytes; send from %2"_s
                      .arg(batch.offset)
                      .arg(held.merged),
            u"offset"_s);
        error.details.insert(u"offset"_s, held.merged);
        error.details.insert(u"stdout_offset"_s, held.stdoutSize);
        error.details.insert(u"stderr_offset"_s, held.stderrSize);
        return error;
    }
    LogOffsets offsets = held;
    if (batch.tagged) {
        QByteArray out;
        QByteArray err;
        qint64 at = 0;
        for (const LogSegment &segment : batch.segments) {
            const QByteArrayView piece = QByteArrayView(batch.bytes).sliced(at, segment.length);
            if (segment.target == LogSegment::Target::Stdout)
                out.append(piece);
            else if (segment.target == LogSegment::Target::Stderr)
                err.append(piece);
            at += segment.length;
        }
        // The streams first: a crash before the merged write leaves the merged log behind,
        // and the worker's resend completes it (and finds the streams' bytes there).
        Result<qint64> outSize = appendAt(stdoutPath, batch.stdoutOffset, out);
        if (!outSize)
            return outSize.error();
        Result<qint64> errSize = appendAt(stderrPath, batch.stderrOffset, err);
        if (!errSize)
            return errSize.error();
        offsets.stdoutSize = *outSize;
        offsets.stderrSize = *errSize;
    }
    Result<qint64> merged = appendAt(mergedPath, batch.offset, batch.bytes);
    if (!merged)
        return merged.error();
    offsets.merged = *merged;
    offsets.appended = offsets.merged - held.merged;
    return offsets;
}

Result<LogSlice> LogStorage::read(qint64 taskId, qint64 offset, qint64 limit,
                                  LogStream stream) const
{
    LogSlice slice;
    slice.offset = std::max<qint64>(0, offset);
    QFile file(path(taskId, stream));
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
