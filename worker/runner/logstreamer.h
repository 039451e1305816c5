#pragma once

#include "core/error.h"
#include "core/result.h"
#include "logindex.h"

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTimer>
#include <optional>

namespace ddl {
class ApiClient;
class ApiRequest;
} // namespace ddl

namespace ddl::worker {

// Sends a task's log to the server as it is written. The task's stdout and stderr are each
// buffered to whole lines (an unfinished line goes out after PartialLineMs or once it holds
// PartialLineBytes), so lines of the two never cut into each other; whole lines go to the local
// merged log at once (WORK_DIR/tasks/<id>/task.log, which is the authority on what the log
// holds), with a LogIndex beside it telling which source wrote what. Batches are posted from it
// every ~100 ms at explicit offsets, tagged with their runs of stdout, stderr and worker lines
// and the offsets of the two streams (POST /v1/workers/tasks/<id>/log?offset=N&streams=...
// &stdout_offset=A&stderr_offset=B), so the server keeps the merged log and each stream apart,
// each idempotently. Memory stays bounded by one batch however long the server is away.
class LogStreamer : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 MaxBatch = 1024 * 1024;
    // Runs per batch: the ?streams= list stays well inside the server's 32 KiB request head.
    static constexpr int MaxRunsPerBatch = 1024;
    static constexpr qint64 PartialLineBytes = 64 * 1024;
    static constexpr int PartialLineMs = 1000;

    LogStreamer(ApiClient *client,
                qint64 taskId,
                const QString &logPath,
                int intervalMs,
                QObject *parent = nullptr);

    Status open();
    // Output of the task: whole lines go to the log at once, an unfinished last line waits.
    // LogSource::Worker bytes are written as they are.
    void append(const QByteArray &bytes, LogSource source = LogSource::Stdout);
    // A line of the worker's own ("[ddl-worker] ..."), told apart from the task's output and
    // kept out of its stdout and stderr; it starts on a line of its own in the merged log.
    void appendLine(const QString &line);
    // Writes the unfinished lines of both streams that have waited at least that long (all of
    // them by default: the task's process ended).
    void flushPartialLines(qint64 waitedAtLeastMs = 0);
    // Sends what is left, then emits drained(); gives up after timeoutMs with a warning.
    void drain(int timeoutMs);

    qint64 writtenBytes() const { return m_written; }
    qint64 sentOffset() const { return m_sent; }

signals:
    void drained();

private:
    void write(const QByteArray &bytes, LogSource source);
    void handleTick();
    void sendBatch();
    void handleAnswer();
    void finishDrain();

    ApiClient *m_client;
    qint64 m_taskId;
    QFile m_writer;
    QFile m_reader;
    LogIndex m_index;
    // Unfinished last lines of stdout and stderr, and since when each has waited.
    QByteArray m_partial[2];
    QElapsedTimer m_partialSince[2];
    bool m_endsWithNewline = true;
    QTimer m_timer;
    QTimer m_drainTimer;
    ApiRequest *m_request = nullptr;
    qint64 m_written = 0;
    qint64 m_sent = 0;
    qint64 m_inflight = 0;
    int m_failures = 0;
    QElapsedTimer m_sinceFailure;
    bool m_draining = false;
    bool m_gaveUp = false;
};

// The server's log length told by a 409 offset_mismatch: the error's "offset" member, else the
// number in its message other than the offset that was sent, else nothing.
std::optional<qint64> offsetFromMismatch(const Error &error, qint64 sentOffset);

// "o120,e45,w30": runs as the log route's ?streams= names them.
QString formatRuns(const QList<LogRun> &runs);

} // namespace ddl::worker
