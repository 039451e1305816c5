#include "workermodel.h"

#include <QColor>
#include <QDateTime>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

WorkerModel::WorkerModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

static QString nameOf(const QJsonObject &worker)
{
    return worker.value("name"_L1).toString();
}

void WorkerModel::setWorkers(const QJsonArray &workers)
{
    QList<QJsonObject> next;
    for (const QJsonValue &worker : workers)
        next.append(worker.toObject());
    // Gone: removed from the bottom up so rows keep their numbers.
    for (int row = int(m_workers.size()) - 1; row >= 0; --row) {
        const bool kept = std::any_of(next.cbegin(), next.cend(), [&](const QJsonObject &w) {
            return nameOf(w) == nameOf(m_workers.at(row));
        });
        if (!kept) {
            beginRemoveRows({}, row, row);
            m_workers.removeAt(row);
            endRemoveRows();
        }
    }
    for (const QJsonObject &worker : next) {
        const auto it = std::find_if(m_workers.begin(), m_workers.end(), [&](const QJsonObject &w) {
            return nameOf(w) == nameOf(worker);
        });
        if (it == m_workers.end()) {
            const int row = int(m_workers.size());
            beginInsertRows({}, row, row);
            m_workers.append(worker);
            endInsertRows();
        } else if (*it != worker) {
            *it = worker;
            const int row = int(it - m_workers.begin());
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }
}

int WorkerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_workers.size());
}

int WorkerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkerModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &worker = m_workers.at(index.row());
    const QString state = worker.value("state"_L1).toString();
    if (role == StateRole)
        return state;
    if (role == IdRole)
        return worker.value("id"_L1).toVariant().toString();
    if (role == Qt::ForegroundRole && index.column() == StateColumn)
        return state == u"ONLINE"_s ? QColor(0x1a, 0x7f, 0x37) : QColor(0xcf, 0x22, 0x2e);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NameColumn:
        return nameOf(worker);
    case HostColumn:
        return worker.value("hostname"_L1).toString();
    case StateColumn:
        return state == u"ONLINE"_s ? tr("Online") : state == u"LOST"_s ? tr("Lost") : state;
    case GpusColumn:
        return worker.value("gpus"_L1).toInt();
    case CpusColumn:
        return worker.value("cpus"_L1).toInt();
    case MemoryColumn:
        return QLocale().formattedDataSize(worker.value("memory_mb"_L1).toInteger() * 1024 * 1024);
    case SlotsColumn:
        return worker.value("slots"_L1).toInt();
    case RunningColumn:
        return worker.value("running_tasks"_L1).toInt();
    case LastSeenColumn: {
        const QDateTime seen =
            QDateTime::fromString(worker.value("last_seen"_L1).toString(), Qt::ISODateWithMs);
        return seen.isValid() ? QLocale().toString(seen.toLocalTime(), QLocale::ShortFormat)
                              : QString();
    }
    case TrustColumn: {
        // The score, 0 to 100, with the state when it is not simply verified (docs/trust.md).
        // A server older than trust scores sends none: nothing shown, not an untrusting 0.
        if (!worker.contains("trust"_L1))
            return QString();
        const QString trustState = worker.value("trust_state"_L1).toString();
        const QString score = QString::number(worker.value("trust"_L1).toInt());
        if (trustState == u"quarantined"_s)
            return tr("%1 (quarantined)").arg(score);
        if (trustState == u"unverified"_s)
            return tr("%1 (unverified)").arg(score);
        return score;
    }
    }
    return {};
}

QVariant WorkerModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case HostColumn:
        return tr("Host");
    case StateColumn:
        return tr("State");
    case GpusColumn:
        return tr("GPUs");
    case CpusColumn:
        return tr("CPUs");
    case MemoryColumn:
        return tr("Memory");
    case SlotsColumn:
        return tr("Slots");
    case RunningColumn:
        return tr("Running tasks");
    case LastSeenColumn:
        return tr("Last seen");
    case TrustColumn:
        return tr("Trust");
    }
    return {};
}

} // namespace ddl::desktop
