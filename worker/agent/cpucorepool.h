#pragma once

#include <QHash>
#include <QList>

namespace ddl::worker {

// The CPU cores of a worker that tasks are pinned to, like its GPUs: each task gets as many as
// its lease's cpus. The server books CPUs by count and may give a worker more than it has (an
// owner may declare more); so a task gets cores no other task holds where there are enough,
// and otherwise shares the least used ones rather than fail. A pool without cores (affinity not
// supported) pins nothing.
class CpuCorePool
{
public:
    CpuCorePool() = default;
    explicit CpuCorePool(const QList<int> &cores);

    const QList<int> &cores() const { return m_cores; }
    // count cores, ascending: free ones first, then the least used (lowest first on a tie);
    // all of them when count exceeds the pool. Empty for count <= 0 or an empty pool.
    QList<int> acquire(int count);
    // Gives back what acquire() returned.
    void release(const QList<int> &cores);
    void clear() { m_users.clear(); }

    // How many running tasks hold core.
    int users(int core) const { return m_users.value(core, 0); }
    QList<int> freeCores() const;

private:
    QList<int> m_cores;
    QHash<int, int> m_users;
};

} // namespace ddl::worker
