#pragma once

#include "core/result.h"

#include <QHash>
#include <QList>
#include <QString>

namespace ddl::server {

// Slows password guessing: too many failed logins for one account, or from one address, within
// a window refuse further attempts (rate_limited, HTTP 429) until the window moves on. Counts live
// in memory: a restart forgets them, which costs an attacker a restart per window at most.
class LoginThrottle
{
public:
    static constexpr int MaxFailuresPerAccount = 5;
    static constexpr int MaxFailuresPerAddress = 20;
    static constexpr qint64 WindowMs = 15 * 60 * 1000;

    // Whether an attempt may go ahead; rate_limited with the wait when not.
    Status check(const QString &account, const QString &address, qint64 nowMs);
    void recordFailure(const QString &account, const QString &address, qint64 nowMs);
    void recordSuccess(const QString &account);

private:
    // Failure times within the window, oldest first, for one key.
    using Failures = QList<qint64>;
    static int recent(Failures &failures, qint64 nowMs);

    QHash<QString, Failures> m_byAccount;
    QHash<QString, Failures> m_byAddress;
};

} // namespace ddl::server
