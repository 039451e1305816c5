#include "tokencommand.h"

#include "serverservices.h"
#include "store/database.h"
#include "store/sql.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

Result<QString> createEnrollToken(const QString &dataDir, const QString &database,
                                  const QString &ownerEmail)
{
    Result<QSqlDatabase> db = Database::open(dataDir, QStringLiteral("ddl-token"), database);
    if (!db)
        return db.error();
    std::optional<qint64> ownerId;
    if (!ownerEmail.isEmpty()) {
        Result<QSqlQuery> user = runSql(*db, u"SELECT id FROM users WHERE email = ?"_s,
                                        {ownerEmail});
        if (!user)
            return user.error();
        if (!user->next()) {
            return Error::make(ErrorCode::NotFound,
                               u"no user %1 on this server; check the email (users register "
                               "with ddlcli register)"_s.arg(ownerEmail),
                               u"owner"_s);
        }
        ownerId = user->value(u"id"_s).toLongLong();
    }
    ServerServices services(*db, dataDir, 0);
    return services.workers.createEnrollToken(ownerId);
}

} // namespace ddl::server
