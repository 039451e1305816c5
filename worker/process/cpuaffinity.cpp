#include "cpuaffinity.h"

#include <QProcess>

#include <algorithm>
#include <functional>
#include <memory>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <sched.h>
#endif

using namespace Qt::StringLiterals;

namespace ddl::worker::cpuaffinity {

#ifdef Q_OS_LINUX
namespace {

struct CpuSetDeleter
{
    void operator()(cpu_set_t *set) const { CPU_FREE(set); }
};
using CpuSet = std::unique_ptr<cpu_set_t, CpuSetDeleter>;

// The kernel's mask may be longer than glibc's cpu_set_t (1024 CPUs): grow until it fits.
constexpr int MaxCpus = 1 << 16;

} // namespace
#endif

QList<int> usableCores()
{
    QList<int> cores;
#ifdef Q_OS_LINUX
    for (int count = CPU_SETSIZE; count <= MaxCpus; count *= 2) {
        CpuSet set(CPU_ALLOC(count));
        if (!set)
            return {};
        const size_t size = CPU_ALLOC_SIZE(count);
        CPU_ZERO_S(size, set.get());
        if (::sched_getaffinity(0, size, set.get()) != 0) {
            if (errno == EINVAL)
                continue;
            return {};
        }
        for (int cpu = 0; cpu < count; ++cpu) {
            if (CPU_ISSET_S(cpu, size, set.get()))
                cores.append(cpu);
        }
        break;
    }
#endif
    // Elsewhere (macOS offers only affinity hints, Windows would need a job object) nothing is
    // pinned: the worker hands out no cores.
    return cores;
}

void pinChild(QProcess &process, const QList<int> &cores)
{
#ifdef Q_OS_LINUX
    if (cores.isEmpty())
        return;
    const int highest = *std::max_element(cores.cbegin(), cores.cend());
    if (highest < 0 || highest >= MaxCpus)
        return;
    // The mask is built here: the child may only make async-signal-safe calls.
    const int count = highest + 1;
    const size_t size = CPU_ALLOC_SIZE(count);
    std::shared_ptr<cpu_set_t> set(CPU_ALLOC(count), CpuSetDeleter{});
    if (!set)
        return;
    CPU_ZERO_S(size, set.get());
    for (int core : cores) {
        if (core >= 0)
            CPU_SET_S(core, size, set.get());
    }
    const std::function<void()> previous = process.childProcessModifier();
    process.setChildProcessModifier([previous, set, size] {
        if (previous)
            previous();
        ::sched_setaffinity(0, size, set.get());
    });
#else
    // No CPU affinity here: the task runs on every CPU (see usableCores()).
    Q_UNUSED(process);
    Q_UNUSED(cores);
#endif
}

QString format(const QList<int> &cores)
{
    QStringList list;
    for (int core : cores)
        list << QString::number(core);
    return list.join(u',');
}

} // namespace ddl::worker::cpuaffinity
