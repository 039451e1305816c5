#pragma once

#include <QString>
#include <QStringList>

namespace ddl::worker {

// What snapshotCheckpoint() took from a task's checkpoint folder.
struct CheckpointSnapshot
{
    int files = 0;
    qint64 bytes = 0;      // of every regular file found, also past the limit
    bool overLimit = false; // bytes passed maxBytes: staging is incomplete, send nothing
    QStringList leftOut;    // one line per entry left out (a link, a FIFO, another file system)
    QString error;          // set: the folder could not be read whole; send nothing
};

// Copies the regular files of a task's checkpoint folder into staging, a folder of the worker's
// own that no task can see, as hard links (or copies where a link cannot be made). The task runs
// while this reads its folder and may swap anything there for a symbolic link at any moment, so
// no path is opened by name twice: the walk goes from directory descriptors (O_NOFOLLOW), each
// file is opened once (O_NOFOLLOW | O_NONBLOCK: a FIFO does not block), must be a regular file
// on the folder's file system, and is linked through its open descriptor. The upload then reads
// only staging, whose names the task cannot change. staging is emptied first.
CheckpointSnapshot snapshotCheckpoint(const QString &folder, const QString &staging, qint64 maxBytes);

} // namespace ddl::worker
