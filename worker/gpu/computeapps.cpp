#include "computeapps.h"

namespace ddl::worker {

QList<ComputeApp> parseComputeApps(const QByteArray &csv)
{
    QList<ComputeApp> apps;
    for (const QByteArray &line : csv.split('\n')) {
        const QList<QByteArray> fields = line.split(',');
        bool ok = false;
        const qint64 pid = fields.constFirst().trimmed().toLongLong(&ok);
        if (!ok || pid <= 0)
            continue;
        apps.append(
            {pid, fields.size() > 1 ? QString::fromUtf8(fields.at(1).trimmed()) : QString()});
    }
    return apps;
}

} // namespace ddl::worker
