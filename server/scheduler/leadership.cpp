#include "leadership.h"

#include "scheduler.h"
#include "store/database.h"
#include "store/sql.h"

#include <QLoggingCategory>
#include <QSqlDriver>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcScheduler)

namespace ddl::server {

static const QString Connection = u"ddl-leadership"_s;
static const QString Channel = u"ddl_scheduler"_s;

Leadership::Leadership(const QString &databaseUrl, Scheduler &scheduler, QObject *parent)
    : QObject(parent)
    , m_databaseUrl(databaseUrl)
    , m_scheduler(scheduler)
{
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &Leadership::handleTick);
}

Leadership::~Leadership()
{
    if (m_db.isValid())
        m_db.close(); // ends the session, and with it the lock
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(Connection);
}

Status Leadership::start()
{
    Result<QSqlDatabase> db = Database::connectPostgres(m_databaseUrl, Connection);
    if (!db)
        return db.error();
    m_db = *db;
    m_fresh = true;
    connect(m_db.driver(), &QSqlDriver::notification, this, [this](const QString &name) {
        handleNotification(name);
    });
    m_scheduler.setShared(true);
    m_tick.start();
    handleTick();
    return Ok{};
}

bool Leadership::tryLead()
{
    if (!m_db.isOpen()) {
        if (!m_db.open())
            return false;
        m_fresh = true;
    }
    if (m_fresh) {
        // PostgreSQL ends the session of a leader whose machine vanished (no FIN, no RST) after
        // about 5 + 3 * 2 s of silence, instead of the system's default of two hours; then the
        // lock is free for another server.
        for (const QString &setting : {u"SET tcp_keepalives_idle = 5"_s,
                                       u"SET tcp_keepalives_interval = 2"_s,
                                       u"SET tcp_keepalives_count = 3"_s}) {
            if (Result<QSqlQuery> set = runSql(m_db, setting); !set) {
                m_db.close();
                return false;
            }
        }
        m_fresh = false;
    }
    Result<QSqlQuery> locked =
        runSql(m_db, u"SELECT pg_try_advisory_lock(%1) AS locked"_s.arg(SchedulerLockKey));
    if (!locked || !locked->next()) {
        // A broken connection: open a new one on the next tick.
        m_db.close();
        return false;
    }
    return locked->value(0).toBool();
}

void Leadership::handleTick()
{
    if (!m_leading) {
        if (!tryLead())
            return;
        // Listen first, so that no change made while rebuilding goes unheard.
        if (!m_db.driver()->subscribeToNotification(Channel)) {
            stepDown(u"cannot LISTEN %1"_s.arg(Channel));
            return;
        }
        m_leading = true;
        qCInfo(lcScheduler) << "this server now leads the scheduler";
        m_scheduler.setLeading(true);
        emit leadingChanged(true);
        return;
    }
    // Still connected, so still holding the lock; else another server may lead already.
    if (Result<QSqlQuery> alive = runSql(m_db, u"SELECT 1"_s); !alive)
        stepDown(alive.error().message);
}

void Leadership::stepDown(const QString &why)
{
    qCWarning(lcScheduler).noquote() << "this server stops leading the scheduler:" << why;
    m_db.driver()->unsubscribeFromNotification(Channel);
    m_db.close();
    const bool was = m_leading;
    m_leading = false;
    m_scheduler.setLeading(false);
    if (was)
        emit leadingChanged(false);
}

void Leadership::handleNotification(const QString &name)
{
    if (name == Channel)
        m_scheduler.handleStoreChanged();
}

} // namespace ddl::server
