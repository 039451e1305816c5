#include "processtree.h"

#include "workerlogging.h"

#include <QProcess>

#ifdef Q_OS_UNIX
#include <QDir>
#include <QFile>
#include <csignal>
#include <unistd.h>
#endif
#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

using namespace Qt::StringLiterals;

namespace ddl::worker::processtree {

void makeSessionLeader(QProcess &process)
{
#ifdef Q_OS_UNIX
    // Runs in the child between fork and exec: only async-signal-safe calls here.
    process.setChildProcessModifier([] {
        ::setsid();
#ifdef Q_OS_LINUX
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    });
#else
    Q_UNUSED(process);
#endif
}

#ifdef Q_OS_UNIX
static bool signalGroup(qint64 leaderPid, int signal)
{
    if (leaderPid <= 1)
        return false;
    if (::kill(-pid_t(leaderPid), signal) == 0)
        return true;
    // The group may already be empty; the leader alone may not have reached setsid() yet.
    return ::kill(pid_t(leaderPid), signal) == 0;
}
#endif

bool terminateTree(qint64 leaderPid)
{
#ifdef Q_OS_UNIX
    qCDebug(lcWorkerProcess) << "SIGTERM to process group" << leaderPid;
    return signalGroup(leaderPid, SIGTERM);
#else
    Q_UNUSED(leaderPid);
    return false;
#endif
}

bool killTree(qint64 leaderPid)
{
#ifdef Q_OS_UNIX
    qCDebug(lcWorkerProcess) << "SIGKILL to process group" << leaderPid;
    return signalGroup(leaderPid, SIGKILL);
#else
    Q_UNUSED(leaderPid);
    return false;
#endif
}

bool treeAlive(qint64 leaderPid)
{
#if defined(Q_OS_LINUX)
    // kill(-pgid, 0) also succeeds for zombies waiting to be reaped, so read /proc instead.
    for (const ProcessEntry &entry : processTable()) {
        if (entry.groupId == leaderPid && entry.state != 'Z' && entry.state != 'X')
            return true;
    }
    return false;
#elif defined(Q_OS_UNIX)
    return leaderPid > 1 && ::kill(-pid_t(leaderPid), 0) == 0;
#else
    Q_UNUSED(leaderPid);
    return false;
#endif
}

QList<ProcessEntry> processTable()
{
    QList<ProcessEntry> table;
#if defined(Q_OS_LINUX)
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile stat(u"/proc/"_s + entry + u"/stat"_s);
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        const qsizetype close = text.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> fields = text.mid(close + 2).split(' ');
        if (fields.size() < 3 || fields.at(0).isEmpty())
            continue;
        table.append({pid, fields.at(0).at(0), fields.at(1).toLongLong(), fields.at(2).toLongLong()});
    }
#endif
    return table;
}

} // namespace ddl::worker::processtree
