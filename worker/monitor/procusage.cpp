#include "procusage.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace ddl::worker::procusage {

bool parseStat(const QByteArray &text, ProcessUsage *usage)
{
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice threads itrealvalue starttime vsize rss ..."
    const qsizetype open = text.indexOf(" (");
    const qsizetype close = text.lastIndexOf(')');
    if (open <= 0 || close < open)
        return false;
    const QList<QByteArray> fields = text.mid(close + 2).trimmed().split(' ');
    // After comm: state is field 0, ppid 1, utime 11 .. cstime 14, rss 21.
    if (fields.size() < 22)
        return false;
    bool ok = false;
    usage->pid = text.left(open).toLongLong(&ok);
    if (!ok)
        return false;
    usage->parentPid = fields.at(1).toLongLong();
    usage->cpuTicks = 0;
    for (int i = 11; i <= 14; ++i)
        usage->cpuTicks += std::max<qint64>(0, fields.at(i).toLongLong());
    usage->startTicks = std::max<qint64>(0, fields.at(19).toLongLong());
    usage->residentPages = std::max<qint64>(0, fields.at(21).toLongLong());
    return true;
}

QHash<qint64, ProcessUsage> readProcesses()
{
    QHash<qint64, ProcessUsage> processes;
#ifdef Q_OS_LINUX
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        if (entry.isEmpty() || !entry.at(0).isDigit())
            continue;
        QFile stat(u"/proc/"_s + entry + u"/stat"_s);
        ProcessUsage usage;
        // A process may end between the listing and the read: then it is simply not counted.
        if (stat.open(QIODevice::ReadOnly) && parseStat(stat.readAll(), &usage))
            processes.insert(usage.pid, usage);
    }
#endif
    return processes;
}

TreeUsage treeUsage(const QHash<qint64, ProcessUsage> &processes, qint64 rootPid)
{
    TreeUsage tree;
    if (rootPid <= 1 || !processes.contains(rootPid))
        return tree;
    QMultiHash<qint64, qint64> children;
    for (const ProcessUsage &process : processes)
        children.insert(process.parentPid, process.pid);
    tree.rootStartTicks = processes.value(rootPid).startTicks;
    QList<qint64> pending{rootPid};
    // Parent links form a tree, but a pid reused mid-read could make a loop: visit each once.
    QSet<qint64> seen;
    while (!pending.isEmpty()) {
        const qint64 pid = pending.takeLast();
        if (seen.contains(pid))
            continue;
        seen.insert(pid);
        const ProcessUsage process = processes.value(pid);
        tree.cpuTicks += process.cpuTicks;
        tree.residentBytes += process.residentPages * pageSize();
        ++tree.processes;
        for (auto it = children.constFind(pid); it != children.cend() && it.key() == pid; ++it)
            pending.append(it.value());
    }
    return tree;
}

HostUsage parseHostUsage(const QByteArray &procStat, const QByteArray &meminfo)
{
    HostUsage host;
    // "cpu  user nice system idle iowait irq softirq steal guest guest_nice": busy is all but
    // idle and iowait (guest time is already in user).
    const qsizetype end = procStat.indexOf('\n');
    const QList<QByteArray> fields = procStat.left(end).simplified().split(' ');
    if (fields.size() >= 9 && fields.at(0) == "cpu") {
        for (int i = 1; i <= 8; ++i) {
            if (i != 4 && i != 5)
                host.busyTicks += fields.at(i).toLongLong();
        }
    }
    static const QRegularExpression line(u"^(MemTotal|MemAvailable):\\s+(\\d+)\\s*kB"_s,
                                         QRegularExpression::MultilineOption);
    qint64 total = -1;
    qint64 available = -1;
    for (auto it = line.globalMatch(QString::fromLatin1(meminfo)); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        (match.captured(1) == u"MemTotal" ? total : available) = match.captured(2).toLongLong();
    }
    if (total >= 0 && available >= 0)
        host.memoryUsedBytes = std::max<qint64>(0, total - available) * 1024;
    return host;
}

HostUsage readHostUsage()
{
    QFile stat(u"/proc/stat"_s);
    QFile meminfo(u"/proc/meminfo"_s);
    if (!stat.open(QIODevice::ReadOnly) || !meminfo.open(QIODevice::ReadOnly))
        return {};
    return parseHostUsage(stat.read(4096), meminfo.readAll());
}

qint64 uptimeTicks()
{
    QFile uptime(u"/proc/uptime"_s);
    if (!uptime.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const double seconds = uptime.read(64).split(' ').value(0).toDouble(&ok);
    return ok ? qint64(seconds * double(ticksPerSecond())) : -1;
}

qint64 ticksPerSecond()
{
#ifdef Q_OS_UNIX
    static const qint64 ticks = std::max<long>(1, ::sysconf(_SC_CLK_TCK));
    return ticks;
#else
    return 100;
#endif
}

qint64 pageSize()
{
#ifdef Q_OS_UNIX
    static const qint64 size = std::max<long>(1, ::sysconf(_SC_PAGESIZE));
    return size;
#else
    return 4096;
#endif
}

} // namespace ddl::worker::procusage
