#include "jobwatcher.h"

#include "models/joblistmodel.h"

namespace ddl::desktop {

JobWatcher::JobWatcher(JobListModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    connect(model, &JobListModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                check(topLeft.row(), bottomRight.row());
            });
    connect(model, &JobListModel::rowsInserted, this,
            [this](const QModelIndex &, int first, int last) { check(first, last); });
}

void JobWatcher::watch(const QString &uuid)
{
    m_watched.insert(uuid);
    const int row = m_model->rowOf(uuid);
    if (row >= 0)
        check(row, row);
}

void JobWatcher::watchSubmitted(const QString &uuid)
{
    m_seenRunning.insert(uuid);
    watch(uuid);
}

void JobWatcher::check(int first, int last)
{
    if (m_watched.isEmpty())
        return;
    for (int row = first; row <= last; ++row) {
        const JobRecord *job = m_model->record(row);
        if (!job || !m_watched.contains(job->uuid))
            continue;
        if (!job->isFinal()) {
            m_seenRunning.insert(job->uuid);
            continue;
        }
        m_watched.remove(job->uuid);
        if (m_seenRunning.remove(job->uuid))
            emit jobEnded(job->uuid, job->name, job->state);
    }
}

} // namespace ddl::desktop
