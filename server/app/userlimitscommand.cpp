#include "userlimitscommand.h"

#include "store/database.h"
#include "store/sql.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

Result<QString>
setUserLimits(const QString &dataDir, const UserLimitsChange &change, const QString &database)
{
    Result<QSqlDatabase> db = Database::open(dataDir, QStringLiteral("ddl-user-limits"), database);
    if (!db)
        return db.error();
    const auto value = [](int limit) { return limit < 0 ? QVariant() : QVariant(limit); };
    Transaction transaction(*db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    Result<QSqlQuery> user = runSql(*db,
                                    QStringLiteral("SELECT id, max_gpus, max_running_jobs FROM "
                                                   "users WHERE email = ?"),
                                    {change.email});
    if (!user)
        return user.error();
    if (!user->next()) {
        return Error::make(ErrorCode::NotFound,
                           QStringLiteral("no user %1 on this server; check the email (users "
                                          "register with ddlcli register)")
                               .arg(change.email),
                           QStringLiteral("email"));
    }
    const qint64 id = user->value(u"id"_s).toLongLong();
    const QVariant gpus = change.maxGpus ? value(*change.maxGpus) : user->value(u"max_gpus"_s);
    const QVariant jobs = change.maxRunningJobs ? value(*change.maxRunningJobs)
                                                : user->value(u"max_running_jobs"_s);
    user->finish();
    if (Result<QSqlQuery> update = runSql(*db,
                                          QStringLiteral("UPDATE users SET max_gpus = ?, "
                                                         "max_running_jobs = ? WHERE id = ?"),
                                          {gpus, jobs, id});
        !update)
        return update.error();
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    const auto show = [](const QVariant &limit) {
        return limit.isNull() ? QStringLiteral("unlimited") : limit.toString();
    };
    return QStringLiteral("%1: max GPUs %2, max running jobs %3")
        .arg(change.email, show(gpus), show(jobs));
}

} // namespace ddl::server
