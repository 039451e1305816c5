#pragma once

#include "core/result.h"

#include <QObject>
#include <QSqlDatabase>
#include <QTimer>

namespace ddl::server {

class Scheduler;

// Which of several servers on one PostgreSQL store places tasks: the one holding the scheduler's
// advisory lock (pg_try_advisory_lock) on a connection of its own. The others try again every
// second; the lock ends with its session, so when the leader dies (even by SIGKILL) another takes
// over within about a second, once PostgreSQL sees the connection close. The leader listens for
// the others' NOTIFY ddl_scheduler and has its Scheduler rebuild from the store.
class Leadership : public QObject
{
    Q_OBJECT
public:
    Leadership(const QString &databaseUrl, Scheduler &scheduler, QObject *parent = nullptr);
    ~Leadership() override;

    // Connects and makes the first attempt; the scheduler stays idle until this server leads.
    Status start();

signals:
    void leadingChanged(bool leading);

private:
    void handleTick();
    void handleNotification(const QString &name);
    bool tryLead();
    void stepDown(const QString &why);

    QString m_databaseUrl;
    Scheduler &m_scheduler;
    QSqlDatabase m_db;
    QTimer m_tick;
    bool m_leading = false;
    bool m_fresh = false; // connected, but its session is not set up yet
};

} // namespace ddl::server
