#include "tokencommand.h"

#include "servercontext.h"
#include "store/database.h"

namespace ddl::server {

Result<QString> createEnrollToken(const QString &dataDir)
{
    Result<QSqlDatabase> db = Database::open(dataDir, QStringLiteral("ddl-token"));
    if (!db)
        return db.error();
    ServerContext context(*db, dataDir, 0);
    return context.workers.createEnrollToken();
}

} // namespace ddl::server
