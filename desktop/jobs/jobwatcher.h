#pragma once

#include <QHash>
#include <QObject>
#include <QSet>

namespace ddl::desktop {

class JobListModel;

// Watches the jobs a person submitted or opened, through the job list's background refresh,
// and says when one ends (for the tray notification) — only an end it saw happen: a job first
// seen finished (opening a job that ended last week) is no news.
class JobWatcher : public QObject
{
    Q_OBJECT
public:
    explicit JobWatcher(JobListModel *model, QObject *parent = nullptr);

    void watch(const QString &uuid);
    // A job this person just submitted: its end is news even if no refresh saw it running.
    void watchSubmitted(const QString &uuid);
    bool isWatching(const QString &uuid) const { return m_watched.contains(uuid); }

signals:
    void jobEnded(const QString &uuid, const QString &name, const QString &state);

private:
    void check(int first, int last);

    JobListModel *m_model;
    QSet<QString> m_watched;
    QSet<QString> m_seenRunning; // watched jobs seen waiting or running since watch()
};

} // namespace ddl::desktop
