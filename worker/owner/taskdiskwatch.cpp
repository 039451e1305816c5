#include "taskdiskwatch.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QtConcurrent>

namespace ddl::worker {

qint64 folderBytes(const QString &dir, const QString &excluded, qint64 stopAbove)
{
    const QString skip = excluded.isEmpty() ? QString() : excluded + u'/';
    qint64 bytes = 0;
    QDirIterator it(dir,
                    QDir::Files | QDir::Dirs | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext() && bytes <= stopAbove) {
        it.next();
        const QFileInfo info = it.fileInfo();
        if (!skip.isEmpty() && QString(info.filePath() + u'/').startsWith(skip))
            continue;
        if (info.isFile() && !info.isSymLink())
            bytes += info.size();
    }
    return bytes;
}

TaskDiskWatch::TaskDiskWatch(qint64 limitBytes,
                             int intervalMs,
                             std::function<QList<Task>()> tasks,
                             QObject *parent)
    : QObject(parent)
    , m_limit(limitBytes)
    , m_tasks(std::move(tasks))
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &TaskDiskWatch::measure);
    connect(&m_watcher,
            &QFutureWatcher<QList<Measured>>::finished,
            this,
            &TaskDiskWatch::handleMeasured);
}

TaskDiskWatch::~TaskDiskWatch()
{
    // The walk reads nothing of this object; wait so that it does not outlive the worker.
    m_watcher.waitForFinished();
}

void TaskDiskWatch::setLimit(qint64 limitBytes)
{
    m_limit = limitBytes;
    if (m_limit > 0)
        m_timer.start();
    else
        m_timer.stop();
}

void TaskDiskWatch::measure()
{
    if (m_watcher.isRunning())
        return; // the last walk is still going: a slow disk gets no second one
    const QList<Task> tasks = m_tasks();
    if (tasks.isEmpty())
        return;
    const qint64 limit = m_limit;
    m_watcher.setFuture(QtConcurrent::run([tasks, limit] {
        QList<Measured> measured;
        for (const Task &task : tasks)
            measured.append({task.id, folderBytes(task.dir, task.excluded, limit)});
        return measured;
    }));
}

void TaskDiskWatch::handleMeasured()
{
    for (const Measured &task : m_watcher.result()) {
        if (m_limit > 0 && task.bytes > m_limit)
            emit overLimit(task.id, task.bytes);
    }
}

} // namespace ddl::worker
