#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace ddl::server {

// A slice of a task's log: the bytes from offset, and the log's size when read.
struct LogSlice
{
    qint64 offset = 0;
    QByteArray bytes;
    qint64 size = 0;
};

// Per-task logs as append-only files DATA/logs/<task id>.log, written by offset so that a worker
// resending a batch after a lost answer never duplicates lines.
class LogStorage
{
public:
    static constexpr qint64 MaxAppendBytes = 4 * 1024 * 1024;
    static constexpr qint64 MaxReadBytes = 1024 * 1024;

    explicit LogStorage(const QString &dataDir);

    Status prepare() const;
    // Appends bytes when offset equals the log's size; an offset below it whose bytes are
    // already there is accepted as a resend. Returns the new size.
    Result<qint64> append(qint64 taskId, qint64 offset, const QByteArray &bytes) const;
    Result<LogSlice> read(qint64 taskId, qint64 offset, qint64 limit) const;
    qint64 size(qint64 taskId) const;

private:
    QString pathFor(qint64 taskId) const;

    QString m_dir;
};

} // namespace ddl::server
