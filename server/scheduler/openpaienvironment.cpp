#include "openpaienvironment.h"

#include "store/sql.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::server {

QList<std::pair<QString, QStringList>> labelledPorts(const QJsonObject &role, int port)
{
    QList<std::pair<QString, QStringList>> ports;
    int next = port + 1;
    for (const QJsonValue &value : role.value(u"portList"_s).toArray()) {
        const QJsonObject entry = value.toObject();
        QStringList numbers;
        for (int i = 0; i < entry.value(u"portNumber"_s).toInt(1); ++i)
            numbers << QString::number(next++);
        ports.append({entry.value(u"label"_s).toString(), numbers});
    }
    return ports;
}

QJsonObject roleNamed(const QJsonObject &spec, const QString &name)
{
    for (const QJsonValue &role : spec.value(u"taskRoles"_s).toArray()) {
        if (role.toObject().value(u"name"_s).toString() == name)
            return role.toObject();
    }
    return {};
}

int openPaiPortCount(const QJsonObject &role)
{
    int count = 1;
    for (const QJsonValue &value : role.value(u"portList"_s).toArray())
        count += std::max(0, value.toObject().value(u"portNumber"_s).toInt(1));
    return count;
}

void addOpenPaiEnvironment(QJsonObject &env, const QSqlDatabase &db, qint64 jobId, int attempt,
                           const QJsonObject &spec, const QString &role, int port)
{
    QStringList all;
    for (const auto &[label, ports] : labelledPorts(roleNamed(spec, role), port)) {
        env.insert(u"PAI_CONTAINER_HOST_%1_PORT_LIST"_s.arg(label), ports.join(u','));
        all << label + u':' + ports.join(u',');
    }
    if (!all.isEmpty())
        env.insert(u"PAI_CONTAINER_HOST_PORT_LIST"_s, all.join(u';'));

    // Every task of the gang, so that peers find each other's labelled ports.
    Result<QSqlQuery> gang = runSql(db,
                                    u"SELECT t.role, t.role_index, t.port, w.address FROM tasks t "
                                    "JOIN workers w ON w.id = t.worker_id WHERE t.job_id = ? AND "
                                    "t.attempt = ?"_s,
                                    {jobId, attempt});
    while (gang && gang->next()) {
        const QString peerRole = gang->value(u"role"_s).toString();
        const QString peer =
            peerRole + u'_' + QString::number(gang->value(u"role_index"_s).toInt());
        env.insert(u"PAI_HOST_IP_"_s + peer, gang->value(u"address"_s).toString());
        for (const auto &[label, ports] :
             labelledPorts(roleNamed(spec, peerRole), gang->value(u"port"_s).toInt()))
            env.insert(u"PAI_PORT_LIST_%1_%2"_s.arg(peer, label), ports.join(u','));
    }

    const QJsonObject jobEnvs = spec.value(u"jobEnvs"_s).toObject();
    for (auto it = jobEnvs.begin(); it != jobEnvs.end(); ++it) {
        if (!env.contains(it.key()))
            env.insert(it.key(), it.value().isString() ? it.value().toString()
                                                       : it.value().toVariant().toString());
    }
}

} // namespace ddl::server
