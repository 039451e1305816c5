#include "tokencommand.h"

#include "serverservices.h"
#include "store/database.h"

namespace ddl::server {

Result<QString> createEnrollToken(const QString &dataDir, const QString &database)
{
    Result<QSqlDatabase> db = Database::open(dataDir, QStringLiteral("ddl-token"), database);
    if (!db)
        return db.error();
    ServerServices services(*db, dataDir, 0);
    return services.workers.createEnrollToken();
}

} // namespace ddl::server
