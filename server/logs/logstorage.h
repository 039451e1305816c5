#pragma once

#include "api/logapi.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrlQuery>

namespace ddl::server {

// A slice of a task's log: the bytes from offset, and the log's size when read.
// The stream a request's ?stream= names (all when absent), or 400 bad_request naming the choices.
Result<LogStream> requestedLogStream(const QUrlQuery &query);

struct LogSlice
{
    qint64 offset = 0;
    QByteArray bytes;
    qint64 size = 0;
};

// Where a batch of a task's output goes: each piece of the batch's bytes, in order, belongs to
// the task's stdout, its stderr, or only the merged log (the worker's own lines).
struct LogSegment
{
    enum class Target : char { Stdout = 'o', Stderr = 'e', MergedOnly = 'w' };
    Target target = Target::MergedOnly;
    qint64 length = 0;
};

// One append from a worker: bytes for the merged log at offset; when tagged, the segments
// split the same bytes into the stdout and stderr logs at their own offsets.
struct LogBatch
{
    qint64 offset = 0;
    QByteArray bytes;
    bool tagged = false;
    qint64 stdoutOffset = 0;
    qint64 stderrOffset = 0;
    QList<LogSegment> segments;

    // "o120,e45,w30": the segments as a worker sends them (?streams=); an error names what is
    // wrong. The lengths must add up to bodySize.
    static Result<QList<LogSegment>> parseSegments(const QString &text, qint64 bodySize);
};

// The lengths of a task's three logs after an append.
struct LogOffsets
{
    qint64 merged = 0;
    qint64 stdoutSize = 0;
    qint64 stderrSize = 0;
    qint64 appended = 0; // bytes the batch added to the merged log (0 for a resend)
};

// Per-task logs as append-only files: DATA/logs/<task id>.log (the merged log, everything in
// the order the worker read it), and <task id>.stdout.log / <task id>.stderr.log (the task's
// two streams apart; about twice the storage). Each file is written by its own offset so that a
// worker resending a batch, after a lost answer or a server crash between the writes of one
// batch, never duplicates or loses bytes in any of them.
class LogStorage
{
public:
    static constexpr qint64 MaxAppendBytes = 4 * 1024 * 1024;
    static constexpr qint64 MaxReadBytes = 1024 * 1024;
    static constexpr int MaxSegments = 4096;

    explicit LogStorage(const QString &dataDir);

    Status prepare() const;
    // Appends a batch (tagged or not) when its offset equals the log's size; an offset below it
    // whose bytes are already there is accepted as a resend. Every file is checked first (409
    // offset_mismatch with the three lengths held when any offset lies past its file's end,
    // nothing written), then the stream files and the merged log are appended.
    Result<LogOffsets> append(qint64 taskId, const LogBatch &batch) const;
    Result<LogSlice> read(qint64 taskId, qint64 offset, qint64 limit,
                          LogStream stream = LogStream::All) const;
    qint64 size(qint64 taskId, LogStream stream = LogStream::All) const;
    QString path(qint64 taskId, LogStream stream = LogStream::All) const;

private:
    QString m_dir;
};

} // namespace ddl::server
