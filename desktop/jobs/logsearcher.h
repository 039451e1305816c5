#pragma once

#include "api/logapi.h"
#include "core/error.h"

#include <QList>
#include <QObject>
#include <QPointer>

#include <optional>

namespace ddl {
class ApiClient;
class ApiRequest;
} // namespace ddl

namespace ddl::desktop {

// Finds a text in the whole of one task's log (or one stream of it) through the server
// (GET .../logs/search), never by loading the log. Once given a text it counts the matches in
// the background, one bounded scan per request, keeping at most MaxKeptMatches of them; a find
// is answered from those when it can, otherwise by a search of its own on the server from the
// given place. Everything is asynchronous: results come as signals.
class LogSearcher : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxKeptMatches = 10000;
    // Background counting stops after this much of the log; finds beyond it ask the server.
    static constexpr qint64 MaxCountedBytes = qint64(1) << 30;
    // How long counting waits before asking again when the server is busy with searches.
    static constexpr int RetryMs = 1000;

    LogSearcher(ApiClient *client, const QString &jobUuid, qint64 taskId, LogStream stream,
                QObject *parent = nullptr);

    // A new text forgets everything of the last one and starts counting again.
    void setText(const QString &text);
    QString text() const { return m_text; }
    // The first match that starts after `after` (-1: from the log's start).
    void findNext(qint64 after);
    // The last match that starts before `before` (-1: from the log's end).
    void findPrevious(qint64 before);
    bool isSearching() const { return m_pending.has_value(); }
    // Whether the log is final (its task ended): until it is, it may grow after the count
    // reached its end, so a find past the count asks the server again. Becoming final has the
    // count read what was written since.
    void setLogComplete(bool complete);

    // What the count knows so far: the matches seen, whether the whole log was counted, and
    // whether counting stopped early: at MaxKeptMatches, or after MaxCountedBytes of the log
    // (countedBytes() says how far it read).
    int countedMatches() const { return int(m_matches.size()); }
    bool countComplete() const { return m_countDone; }
    bool countCapped() const { return m_capped; }
    bool countStoppedAtBytes() const { return m_capped && m_cappedByBytes; }
    qint64 countedBytes() const { return m_countedTo; }

signals:
    // number: the match's place among all matches (1 = the first in the log), 0 when not known.
    void found(qint64 offset, qint64 lineStart, int number);
    void notFound(bool backward);
    void countChanged();
    void failed(const ddl::Error &error);

private:
    struct Pending
    {
        bool backward = false;
        qint64 from = -1;
    };
    void countMore();
    void resolvePending();
    void searchOnServer(qint64 from, bool backward);
    ApiRequest *send(qint64 from, bool backward);

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    qint64 m_taskId;
    LogStream m_stream;
    QString m_text;
    int m_generation = 0;
    QList<LogMatch> m_matches; // ascending; every match in [0, m_countedTo) while not capped
    qint64 m_countedTo = 0;
    bool m_countDone = false;
    bool m_capped = false;
    bool m_cappedByBytes = false;
    bool m_logComplete = false;
    ApiRequest *m_countRequest = nullptr;
    ApiRequest *m_searchRequest = nullptr;
    std::optional<Pending> m_pending;
};

} // namespace ddl::desktop
