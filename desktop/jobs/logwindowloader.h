#pragma once

#include "api/logapi.h"
#include "core/error.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace ddl {
class ApiClient;
class ApiRequest;
}

namespace ddl::desktop {

// Reads one task's log (the merged one, or only its stdout or stderr) a window at a time through
// the offset API (GET .../logs?offset&limit[&stream], or tail), so a 1 GB log costs one window
// of memory. With follow on, it polls for what was
// written after the window's end and hands it over as appended text.
class LogWindowLoader : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 WindowBytes = 256 * 1024;

    LogWindowLoader(ApiClient *client, const QString &jobUuid, qint64 taskId,
                    LogStream stream = LogStream::All, QObject *parent = nullptr);

    // The window starting at the first line at or after offset.
    void loadAt(qint64 offset);
    // The window starting at offset itself (at the character there), for a place inside a line
    // longer than a window, where loadAt would skip past the whole line.
    void loadFrom(qint64 offset);
    void loadTail();
    void setFollow(bool follow);
    bool follows() const { return m_follow; }

    qint64 windowStart() const { return m_windowStart; }
    qint64 windowEnd() const { return m_windowEnd; }
    qint64 logSize() const { return m_logSize; }
    bool isComplete() const { return m_complete; }
    qint64 taskId() const { return m_taskId; }
    LogStream stream() const { return m_stream; }

    static constexpr int PollMs = 700;

signals:
    // The view replaces its text with bytes (which start at start).
    void windowLoaded(qint64 start, const QByteArray &bytes, qint64 logSize);
    void appended(const QByteArray &bytes, qint64 logSize);
    void failed(const ddl::Error &error);

private:
    enum class Start { Tail, NextLine, Exact, Append };
    void request(qint64 offset, qint64 limit, Start start);
    void poll();

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    qint64 m_taskId;
    LogStream m_stream;
    qint64 m_windowStart = 0;
    qint64 m_windowEnd = 0;
    qint64 m_logSize = 0;
    bool m_complete = false;
    bool m_follow = false;
    ApiRequest *m_inFlight = nullptr;
    QTimer m_pollTimer;
};

} // namespace ddl::desktop
