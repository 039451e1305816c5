#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <functional>

namespace ddl::worker {

// The bytes of the files under dir, not counting those under excluded (nor following symbolic
// links), counted until more than stopAbove: the walk of a task that wrote millions of files
// ends once it is over the limit.
qint64 folderBytes(const QString &dir, const QString &excluded, qint64 stopAbove);

// The owner's cap on each task's disk use (--task-disk-limit): every intervalMs the folders of
// the running tasks are measured on a thread of the pool (never on the event loop), and a task
// whose folder holds more than the limit is reported by overLimit().
class TaskDiskWatch : public QObject
{
    Q_OBJECT
public:
    struct Task
    {
        qint64 id = 0;
        QString dir;
        QString excluded; // the dataset's hard links to the worker's cache
    };

    TaskDiskWatch(qint64 limitBytes,
                  int intervalMs,
                  std::function<QList<Task>()> tasks,
                  QObject *parent = nullptr);
    ~TaskDiskWatch() override;

    void start() { m_timer.start(); }
    // A new limit from the owner; 0 stops the watch.
    void setLimit(qint64 limitBytes);

signals:
    void overLimit(qint64 taskId, qint64 bytes);

private:
    struct Measured
    {
        qint64 id = 0;
        qint64 bytes = 0;
    };
    void measure();
    void handleMeasured();

    qint64 m_limit;
    std::function<QList<Task>()> m_tasks;
    QTimer m_timer;
    QFutureWatcher<QList<Measured>> m_watcher;
};

} // namespace ddl::worker
