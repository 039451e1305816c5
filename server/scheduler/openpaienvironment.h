#pragma once

#include <QJsonObject>
#include <QSqlDatabase>
#include <QString>

namespace ddl::server {

// The task role of this name in a spec (its wire JSON); empty when it has none.
QJsonObject roleNamed(const QJsonObject &spec, const QString &name);

// label -> its ports, in portList order, for a task of this task role (its wire JSON) whose own
// port is port: the run booked after it.
QList<std::pair<QString, QStringList>> labelledPorts(const QJsonObject &role, int port);

// The ports a task of this task role (its wire JSON) books on its worker: its own one plus the
// portNumber of every portList entry.
int openPaiPortCount(const QJsonObject &role);

// Adds to a task's environment what its OpenPAI spec asks beyond the PAI_* table: jobEnvs (never
// over a variable already set) and the ports of the portLists, booked as one run after the task's
// own port, in portList order: PAI_CONTAINER_HOST_<label>_PORT_LIST and
// PAI_CONTAINER_HOST_PORT_LIST ("label:p1,p2;label2:p3") for this task, and for every task of
// the gang PAI_PORT_LIST_<role>_<index>_<label> and PAI_HOST_IP_<role>_<index>.
void addOpenPaiEnvironment(QJsonObject &env, const QSqlDatabase &db, qint64 jobId, int attempt,
                           const QJsonObject &spec, const QString &role, int port);

} // namespace ddl::server
