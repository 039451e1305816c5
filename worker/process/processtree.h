#pragma once

#include <QList>
#include <QtGlobal>

class QProcess;

namespace ddl::worker::processtree {

// The seam between the runner and the operating system's process groups. A task's first
// process leads a session of its own, so that everything it spawns can be signalled at once
// and nothing it starts outlives a cancel. Elsewhere than on Unix these are no-ops and only the
// first process is killed (by QProcess).

// Makes the process started next by `process` the leader of a new session (setsid) that dies
// with the worker (Linux: PR_SET_PDEATHSIG).
void makeSessionLeader(QProcess &process);

// Asks every process of the tree led by leaderPid to end (SIGTERM to its group).
bool terminateTree(qint64 leaderPid);

// Ends every process of the tree led by leaderPid at once (SIGKILL to its group).
bool killTree(qint64 leaderPid);

// True while any process of the group led by leaderPid is still alive (zombies do not count).
bool treeAlive(qint64 leaderPid);

// One line of the process table, as /proc/<pid>/stat tells it.
struct ProcessEntry
{
    qint64 pid = 0;
    char state = '?'; // R, S, D, Z (zombie), X (dead), ...
    qint64 parentPid = 0;
    qint64 groupId = 0;
};

// Every process visible in /proc (Linux); empty elsewhere.
QList<ProcessEntry> processTable();

} // namespace ddl::worker::processtree
