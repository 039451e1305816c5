#pragma once

#include "core/result.h"

#include <QHash>

#include <mutex>

namespace ddl::server {

// How many log searches may wait or run at once, in all and per user: a user who fires
// searches in a loop gets 429 instead of queueing scans that hold up everyone else's. Admit on
// the server's thread; release from any thread when the scan ends.
class SearchAdmission
{
public:
    static constexpr int MaxPending = 16;
    static constexpr int MaxPendingPerUser = 4;

    // Ok and counted, or rate_limited naming the limit.
    Status admit(qint64 user);
    void release(qint64 user);

private:
    std::mutex m_mutex;
    int m_pending = 0;
    QHash<qint64, int> m_perUser;
};

} // namespace ddl::server
