#include "cpucorepool.h"

#include <algorithm>

namespace ddl::worker {

CpuCorePool::CpuCorePool(const QList<int> &cores)
    : m_cores(cores)
{
    std::sort(m_cores.begin(), m_cores.end());
    m_cores.erase(std::unique(m_cores.begin(), m_cores.end()), m_cores.end());
}

QList<int> CpuCorePool::acquire(int count)
{
    if (count <= 0 || m_cores.isEmpty())
        return {};
    QList<int> order = m_cores;
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        return users(a) < users(b);
    });
    QList<int> chosen = order.first(std::min<qsizetype>(count, order.size()));
    std::sort(chosen.begin(), chosen.end());
    for (int core : std::as_const(chosen))
        ++m_users[core];
    return chosen;
}

void CpuCorePool::release(const QList<int> &cores)
{
    for (int core : cores) {
        auto it = m_users.find(core);
        if (it == m_users.end())
            continue;
        if (--it.value() <= 0)
            m_users.erase(it);
    }
}

QList<int> CpuCorePool::freeCores() const
{
    QList<int> free;
    for (int core : m_cores) {
        if (users(core) == 0)
            free.append(core);
    }
    return free;
}

} // namespace ddl::worker
