#include "workerscommand.h"

#include "store/database.h"
#include "store/sql.h"
#include "workers/trustservice.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::server {

static Result<QSqlDatabase> openStore(const WorkersCommand &command)
{
    return Database::open(command.dataDir, u"ddl-workers"_s, command.database);
}

Result<QString> WorkersCommand::list() const
{
    Result<QSqlDatabase> db = openStore(*this);
    if (!db)
        return db.error();
    Result<QSqlQuery> rows = runSql(
        *db, u"SELECT name, state, "_s + TrustService::Columns + u" FROM workers ORDER BY id"_s);
    if (!rows)
        return rows.error();
    QList<QStringList> table{
        {u"ID"_s, u"NAME"_s, u"STATE"_s, u"TRUST"_s, u"TRUST STATE"_s, u"REASON"_s}};
    while (rows->next()) {
        const WorkerTrust trust = TrustService::trustOf(*rows);
        table.append({QString::number(trust.workerId),
                      rows->value(u"name"_s).toString(),
                      rows->value(u"state"_s).toString(),
                      QString::number(trust.score),
                      trust.stateName(),
                      trust.quarantineReason});
    }
    if (table.size() == 1)
        return u"no workers enrolled yet (make a token with ddl-server token create)"_s;
    QList<qsizetype> widths(table.first().size(), 0);
    for (const QStringList &row : std::as_const(table)) {
        for (qsizetype i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], row.at(i).size());
    }
    QStringList lines;
    for (const QStringList &row : std::as_const(table)) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row.at(i).leftJustified(widths[i] + 2) : row.at(i);
        lines << line.trimmed();
    }
    return lines.join(u'\n');
}

Result<QString> WorkersCommand::quarantine(qint64 workerId, const QString &reason) const
{
    Result<QSqlDatabase> db = openStore(*this);
    if (!db)
        return db.error();
    const QString why =
        reason.trimmed().isEmpty() ? u"quarantined by the admin"_s : reason.trimmed().left(500);
    if (Status marked = TrustService(*db).quarantine(workerId, why); !marked)
        return marked.error();
    return u"worker %1 quarantined (%2): it gets no new tasks until ddl-server workers "
           "release %1"_s.arg(workerId)
               .arg(why);
}

Result<QString> WorkersCommand::release(qint64 workerId) const
{
    Result<QSqlDatabase> db = openStore(*this);
    if (!db)
        return db.error();
    if (Status released = TrustService(*db).release(workerId); !released)
        return released.error();
    return u"worker %1 released; it is unverified until it passes a canary (when canaries are "
           "on)"_s.arg(workerId);
}

} // namespace ddl::server
