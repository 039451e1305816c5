#include "loginthrottle.h"

namespace ddl::server {

int LoginThrottle::recent(Failures &failures, qint64 nowMs)
{
    while (!failures.isEmpty() && failures.first() <= nowMs - WindowMs)
        failures.removeFirst();
    return int(failures.size());
}

Status LoginThrottle::check(const QString &account, const QString &address, qint64 nowMs)
{
    const auto refuse = [nowMs](const Failures &failures, const QString &what) {
        const qint64 waitSeconds = (failures.first() + WindowMs - nowMs + 999) / 1000;
        return Error::make(ErrorCode::RateLimited,
                           QStringLiteral("too many failed logins %1; try again in %2 s")
                               .arg(what)
                               .arg(waitSeconds));
    };
    Failures &accountFailures = m_byAccount[account.toLower()];
    if (recent(accountFailures, nowMs) >= MaxFailuresPerAccount)
        return refuse(accountFailures, QStringLiteral("for this account"));
    Failures &addressFailures = m_byAddress[address];
    if (recent(addressFailures, nowMs) >= MaxFailuresPerAddress)
        return refuse(addressFailures, QStringLiteral("from this address"));
    return Ok{};
}

void LoginThrottle::recordFailure(const QString &account, const QString &address, qint64 nowMs)
{
    m_byAccount[account.toLower()].append(nowMs);
    m_byAddress[address].append(nowMs);
    // Keys with no recent failure are dropped now and then, so the tables stay small.
    if (m_byAddress.size() > 10000) {
        for (auto it = m_byAddress.begin(); it != m_byAddress.end();)
            it = recent(*it, nowMs) == 0 ? m_byAddress.erase(it) : std::next(it);
        for (auto it = m_byAccount.begin(); it != m_byAccount.end();)
            it = recent(*it, nowMs) == 0 ? m_byAccount.erase(it) : std::next(it);
    }
}

void LoginThrottle::recordSuccess(const QString &account)
{
    m_byAccount.remove(account.toLower());
}

} // namespace ddl::server
