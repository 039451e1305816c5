#include "taskmodel.h"

#include "models/jobrecord.h"

namespace ddl::desktop {

TaskModel::TaskModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

static QList<qint64> idsOf(const QList<TaskMessage> &tasks)
{
    QList<qint64> ids;
    for (const TaskMessage &task : tasks)
        ids.append(task.id);
    return ids;
}

void TaskModel::setTasks(const QList<TaskMessage> &next)
{
    if (idsOf(next) == idsOf(m_tasks)) {
        for (int row = 0; row < next.size(); ++row) {
            if (next.at(row) == m_tasks.at(row))
                continue;
            m_tasks[row] = next.at(row);
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
        return;
    }
    // A new attempt brings a new set of tasks: a different list.
    beginResetModel();
    m_tasks = next;
    endResetModel();
}

qint64 TaskModel::taskId(int row) const
{
    return row >= 0 && row < m_tasks.size() ? m_tasks.at(row).id : -1;
}

QString TaskModel::label(int row) const
{
    if (row < 0 || row >= m_tasks.size())
        return {};
    const TaskMessage &task = m_tasks.at(row);
    return tr("%1 #%2").arg(task.role).arg(task.roleIndex);
}

int TaskModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_tasks.size());
}

int TaskModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

// "host:port" of a placed task; its worker's address alone before a port was booked.
static QString addressText(const TaskMessage &task)
{
    if (task.address.isEmpty() || task.port <= 0)
        return task.address;
    return task.address + u':' + QString::number(task.port);
}

// "http 20001,20002; ssh 20003": what an OpenPAI portList booked.
static QString portsText(const TaskMessage &task)
{
    QStringList labels;
    for (auto it = task.ports.cbegin(); it != task.ports.cend(); ++it) {
        QStringList numbers;
        for (const int port : it.value())
            numbers << QString::number(port);
        labels << it.key() + u' ' + numbers.join(u',');
    }
    return labels.join(u"; ");
}

QVariant TaskModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TaskMessage &task = m_tasks.at(index.row());
    const QString state = stateName(task.state);
    if (role == TaskIdRole)
        return task.id;
    if (role == StateRole)
        return state;
    if (role == Qt::ForegroundRole && index.column() == StateColumn)
        return JobStateStyle::color(state);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case RoleColumn: return task.role;
    case IndexColumn: return task.roleIndex;
    case StateColumn: return JobStateStyle::displayName(state);
    case WorkerColumn:
        // With the worker's trust score now (docs/trust.md), once it was placed.
        return task.workerTrust ? tr("%1 (trust %2)").arg(task.worker).arg(*task.workerTrust)
                                : task.worker;
    case AddressColumn: return addressText(task);
    case PortsColumn: return portsText(task);
    case GpusColumn: {
        QStringList gpus;
        for (const int gpu : task.gpus)
            gpus << QString::number(gpu);
        return gpus.join(u',');
    }
    case ExitCodeColumn: return task.exitCode ? QVariant(*task.exitCode) : QVariant();
    case AttemptColumn: return task.attempt;
    }
    return {};
}

QVariant TaskModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RoleColumn: return tr("Role");
    case IndexColumn: return tr("Index");
    case StateColumn: return tr("State");
    case WorkerColumn: return tr("Worker");
    case AddressColumn: return tr("Address");
    case PortsColumn: return tr("Ports");
    case GpusColumn: return tr("GPUs");
    case ExitCodeColumn: return tr("Exit code");
    case AttemptColumn: return tr("Attempt");
    }
    return {};
}

} // namespace ddl::desktop
