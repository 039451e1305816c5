#pragma once

#include "core/result.h"

#include <QFile>
#include <QList>

namespace ddl::worker {

// Where a piece of a task's log came from: the task's stdout (pip's output of the venv setup
// counts as stdout), its stderr, or the worker itself ("[ddl-worker] ..." lines, which go to
// the merged log only).
enum class LogSource : qint32 { Stdout = 0, Stderr = 1, Worker = 2 };

// A run of the merged log from one source, as sent to the server (?streams=o120,e45,w30).
struct LogRun
{
    LogSource source = LogSource::Stdout;
    qint64 length = 0;
};

// Which source wrote each byte of a task's merged log, kept beside it on disk
// (WORK_DIR/tasks/<id>/task.log.index): one fixed-size record per change of source, holding
// where the change lies in the merged log and in the stdout and stderr streams. From it the
// streamer tells the offsets of the three logs at any point of the merged one, so a batch can be
// sent (and sent again) from anywhere without keeping the log's history in memory.
class LogIndex
{
public:
    // Offsets of the three logs at one point of the merged log.
    struct Position
    {
        qint64 merged = 0;
        qint64 stdoutOffset = 0;
        qint64 stderrOffset = 0;
    };

    explicit LogIndex(const QString &path);

    Status open(); // truncates
    // Records that length more bytes from source were appended to the merged log.
    void append(LogSource source, qint64 length);
    qint64 size() const { return m_size; }

    Position positionAt(qint64 merged) const;
    // The runs of the merged log from `from`, at most maxBytes bytes in at most maxRuns runs.
    QList<LogRun> runs(qint64 from, qint64 maxBytes, int maxRuns) const;
    // The last point at or before `merged` whose stream offsets lie at or before the given ones:
    // where a worker sends again from when the server holds less than was sent.
    qint64 rewindPoint(qint64 merged, qint64 stdoutOffset, qint64 stderrOffset) const;

private:
    struct Record
    {
        qint64 merged = 0;
        qint64 stdoutOffset = 0;
        qint64 stderrOffset = 0;
        qint64 source = 0;
    };
    Record record(qint64 index) const;
    qint64 recordEnd(qint64 index) const;
    // The last record that starts at or before merged (0 when there is none).
    qint64 recordAt(qint64 merged) const;

    mutable QFile m_file;
    qint64 m_count = 0;
    qint64 m_size = 0;
    Record m_last;
};

} // namespace ddl::worker
