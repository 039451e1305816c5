#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QtGlobal>

namespace ddl::worker::procusage {

// What /proc/<pid>/stat says of one process's use of the machine.
struct ProcessUsage
{
    qint64 pid = 0;
    qint64 parentPid = 0;
    // utime + stime + cutime + cstime in clock ticks: its own CPU time and that of the children
    // it has reaped, so a tree's sum does not drop when a child ends.
    qint64 cpuTicks = 0;
    qint64 residentPages = 0;
    qint64 startTicks = 0; // when it started, in clock ticks since boot
};

// One line of /proc/<pid>/stat; false when it cannot be read (comm may hold spaces and ')').
bool parseStat(const QByteArray &text, ProcessUsage *usage);

// Every process /proc shows (Linux; empty elsewhere), by pid.
QHash<qint64, ProcessUsage> readProcesses();

// The sum over the process rootPid and everything below it (by parent pid).
struct TreeUsage
{
    qint64 cpuTicks = 0;
    qint64 residentBytes = 0;
    int processes = 0; // 0: the root is gone
    qint64 rootStartTicks = 0;
};
TreeUsage treeUsage(const QHash<qint64, ProcessUsage> &processes, qint64 rootPid);

// The machine as a whole: busy CPU time of all cores (/proc/stat) and memory in use
// (MemTotal - MemAvailable of /proc/meminfo).
struct HostUsage
{
    qint64 busyTicks = 0;
    qint64 memoryUsedBytes = 0;
};
HostUsage parseHostUsage(const QByteArray &procStat, const QByteArray &meminfo);
HostUsage readHostUsage();
// Clock ticks since boot (/proc/uptime), the clock of ProcessUsage::startTicks; -1 unknown.
qint64 uptimeTicks();

// sysconf(_SC_CLK_TCK) and the page size: the units of /proc.
qint64 ticksPerSecond();
qint64 pageSize();

} // namespace ddl::worker::procusage
