#pragma once

#include "core/error.h"
#include "core/result.h"

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

// Sends a task's log to the server as it is written. Bytes go to the local log file at once
// (WORK_DIR/tasks/<id>/task.log, which is the authority on what the log holds) and are posted
// from it in batches every ~100 ms at explicit offsets (POST /v1/workers/tasks/<id>/log?offset=N).
// Memory stays bounded by one batch however long the server is away.
class LogStreamer : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 MaxBatch = 1024 * 1024;

    LogStreamer(ApiClient *client,
                qint64 taskId,
                const QString &logPath,
                int intervalMs,
                QObject *parent = nullptr);

    Status open();
    void append(const QByteArray &bytes);
    // A line of the worker's own ("[ddl-worker] ..."), told apart from the task's output.
    void appendLine(const QString &line);
    // Sends what is left, then emits drained(); gives up after timeoutMs with a warning.
    void drain(int timeoutMs);

    qint64 writtenBytes() const { return m_written; }
    qint64 sentOffset() const { return m_sent; }

signals:
    void drained();

private:
    void handleTick();
    void sendBatch();
    void handleAnswer();
    void finishDrain();

    ApiClient *m_client;
    qint64 m_taskId;
    QFile m_writer;
    QFile m_reader;
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

} // namespace ddl::worker
