#pragma once

#include <QList>
#include <QString>

class QProcess;

namespace ddl::worker::cpuaffinity {

// The seam between the runner and the operating system's CPU affinity. On Linux a task's first
// process is pinned to its cores (sched_setaffinity between fork and exec), and everything it
// starts, bubblewrap's sandbox included, inherits the mask. Elsewhere nothing is pinned:
// usableCores() is empty, so the worker hands out no cores and tasks use every CPU.

// The CPUs this process may run on (sched_getaffinity), ascending: a worker started under
// taskset or in a cpuset offers only those. Empty where affinity is not supported.
QList<int> usableCores();

// Pins the process started next by `process` to cores, after the child process modifier
// already set (processtree::makeSessionLeader's). Nothing for an empty list. A mask the kernel
// refuses (cores taken from the worker's cpuset meanwhile) leaves the task unpinned.
void pinChild(QProcess &process, const QList<int> &cores);

// "2,3": the form of DDL_CPU_CORES and the task's log.
QString format(const QList<int> &cores);

} // namespace ddl::worker::cpuaffinity
