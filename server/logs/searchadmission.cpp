#include "searchadmission.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

Status SearchAdmission::admit(qint64 user)
{
    std::lock_guard lock(m_mutex);
    if (m_perUser.value(user) >= MaxPendingPerUser) {
        return Error::make(ErrorCode::RateLimited,
                           u"%1 of your log searches are still running; wait for their answers "
                           u"before starting another"_s.arg(MaxPendingPerUser));
    }
    if (m_pending >= MaxPending) {
        return Error::make(ErrorCode::RateLimited,
                           u"the server is busy with other log searches; try again in a moment"_s);
    }
    ++m_pending;
    ++m_perUser[user];
    return Ok{};
}

void SearchAdmission::release(qint64 user)
{
    std::lock_guard lock(m_mutex);
    --m_pending;
    if (--m_perUser[user] <= 0)
        m_perUser.remove(user);
}

} // namespace ddl::server
