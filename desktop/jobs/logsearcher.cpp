#include "logsearcher.h"

#include "api/apiclient.h"
#include "core/requestcallback.h"

#include <QTimer>

#include <algorithm>
#include <limits>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

LogSearcher::LogSearcher(ApiClient *client, const QString &jobUuid, qint64 taskId,
                         LogStream stream, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
    , m_taskId(taskId)
    , m_stream(stream)
{
}

void LogSearcher::setText(const QString &text)
{
    if (text == m_text)
        return;
    ++m_generation;
    for (ApiRequest *request : {std::exchange(m_countRequest, nullptr),
                                std::exchange(m_searchRequest, nullptr)}) {
        if (request)
            request->abort();
    }
    m_text = text;
    m_matches.clear();
    m_countedTo = 0;
    m_countDone = text.isEmpty();
    m_capped = false;
    m_cappedByBytes = false;
    m_pending.reset();
    emit countChanged();
    countMore();
}

void LogSearcher::setLogComplete(bool complete)
{
    if (complete == m_logComplete)
        return;
    m_logComplete = complete;
    if (complete && m_countDone && !m_text.isEmpty()) {
        // The count reached an end that the task may have written past before it ended: it
        // reads on, from a little before that end for a match the end cut in two.
        m_countDone = false;
        m_countedTo = std::max<qint64>(0, m_countedTo - (m_text.toUtf8().size() - 1));
        countMore();
    }
}

void LogSearcher::findNext(qint64 after)
{
    if (m_searchRequest)
        std::exchange(m_searchRequest, nullptr)->abort();
    m_pending = Pending{false, after};
    resolvePending();
}

void LogSearcher::findPrevious(qint64 before)
{
    if (m_searchRequest)
        std::exchange(m_searchRequest, nullptr)->abort();
    m_pending = Pending{true, before};
    resolvePending();
}

ApiRequest *LogSearcher::send(qint64 from, bool backward)
{
    LogSearchRequest search;
    search.taskId = m_taskId;
    search.text = m_text;
    search.stream = m_stream;
    search.from = from;
    search.backward = backward;
    return m_client->searchLog(m_jobUuid, search);
}

void LogSearcher::countMore()
{
    if (!m_client || m_text.isEmpty() || m_countDone || m_capped || m_countRequest)
        return;
    ApiRequest *request = send(m_countedTo, false);
    m_countRequest = request;
    const int generation = m_generation;
    whenFinished(request, this, [this, request, generation](const Result<ApiResponse> &result) {
        if (generation != m_generation)
            return;
        if (m_countRequest == request)
            m_countRequest = nullptr;
        if (!result) {
            if (result.error().is(ErrorCode::RateLimited)) {
                // The server holds a few searches per user at once (other tabs may be
                // searching): counting tries again shortly instead of giving up.
                QTimer::singleShot(RetryMs, this, [this, generation] {
                    if (generation == m_generation)
                        countMore();
                });
                return;
            }
            if (!result.error().is(ErrorCode::Aborted))
                emit failed(result.error());
            return;
        }
        Result<LogSearchAnswer> answer = LogApi::parseSearchAnswer(*result);
        if (!answer) {
            emit failed(answer.error());
            return;
        }
        for (const LogMatch &match : answer->matches) {
            if (!m_matches.isEmpty() && match.offset <= m_matches.last().offset)
                continue; // read again after the log became complete
            if (m_matches.size() >= MaxKeptMatches) {
                // Every match before this one is kept: the count is exact up to here.
                m_capped = true;
                m_countedTo = match.offset;
                break;
            }
            m_matches.append(match);
        }
        if (!m_capped) {
            m_countedTo = answer->scannedTo;
            m_countDone = answer->done;
            if (!m_countDone && m_countedTo >= MaxCountedBytes) {
                // Enough for a count; counting a huge log to its end would be scan after scan.
                m_capped = true;
                m_cappedByBytes = true;
            }
        }
        emit countChanged();
        if (m_pending && !m_searchRequest)
            resolvePending();
        countMore();
    });
}

void LogSearcher::resolvePending()
{
    if (!m_pending || m_text.isEmpty())
        return;
    const Pending pending = *m_pending;
    auto report = [this](qsizetype index) {
        m_pending.reset();
        const LogMatch match = m_matches.at(index);
        emit found(match.offset, match.lineStart, int(index + 1));
    };
    auto none = [this, &pending] {
        m_pending.reset();
        emit notFound(pending.backward);
    };
    const auto byOffset = [](const LogMatch &match, qint64 offset) { return match.offset < offset; };
    if (!pending.backward) {
        const auto next = std::lower_bound(m_matches.cbegin(), m_matches.cend(), pending.from + 1,
                                           byOffset);
        if (next != m_matches.cend())
            return report(next - m_matches.cbegin());
        if (m_countDone && m_logComplete)
            return none();
        if (m_countDone) {
            // The task still writes: what it wrote after the count is the server's to search,
            // from a little before the count's end for a match the end cut in two.
            const qint64 overlap = m_text.toUtf8().size() - 1;
            return searchOnServer(std::max(pending.from + 1, m_countedTo - overlap), false);
        }
        if (m_capped)
            return searchOnServer(std::max(pending.from + 1, m_countedTo), false);
        countMore(); // the count reaches it, or the end, soon
        return;
    }
    const bool countCoversLog = m_countDone && m_logComplete;
    if (pending.from < 0 && !countCoversLog)
        return searchOnServer(-1, true);
    if (pending.from < 0 || pending.from <= m_countedTo || countCoversLog) {
        const qint64 before = pending.from < 0 ? std::numeric_limits<qint64>::max() : pending.from;
        const auto first = std::lower_bound(m_matches.cbegin(), m_matches.cend(), before, byOffset);
        if (first != m_matches.cbegin())
            return report(first - m_matches.cbegin() - 1);
        return none();
    }
    searchOnServer(pending.from, true);
}

void LogSearcher::searchOnServer(qint64 from, bool backward)
{
    if (!m_client)
        return;
    ApiRequest *request = send(from, backward);
    m_searchRequest = request;
    const int generation = m_generation;
    whenFinished(request, this,
                 [this, request, generation, backward](const Result<ApiResponse> &result) {
                     if (generation != m_generation || m_searchRequest != request)
                         return;
                     m_searchRequest = nullptr;
                     if (!result) {
                         if (!result.error().is(ErrorCode::Aborted)) {
                             m_pending.reset();
                             emit failed(result.error());
                         }
                         return;
                     }
                     Result<LogSearchAnswer> answer = LogApi::parseSearchAnswer(*result);
                     if (!answer) {
                         m_pending.reset();
                         emit failed(answer.error());
                         return;
                     }
                     if (!answer->matches.isEmpty()) {
                         const LogMatch match = answer->matches.first();
                         int number = 0;
                         if (match.offset < m_countedTo || m_countDone) {
                             const auto at = std::find_if(
                                 m_matches.cbegin(), m_matches.cend(),
                                 [&match](const LogMatch &kept) { return kept.offset == match.offset; });
                             if (at != m_matches.cend())
                                 number = int(at - m_matches.cbegin() + 1);
                         }
                         m_pending.reset();
                         emit found(match.offset, match.lineStart, number);
                         return;
                     }
                     if (answer->done) {
                         m_pending.reset();
                         emit notFound(backward);
                         return;
                     }
                     searchOnServer(answer->scannedTo, backward); // the next bounded scan
                 });
}

} // namespace ddl::desktop
