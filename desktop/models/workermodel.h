#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace ddl::desktop {

// The workers of the pool (ApiClient::workers): machines, GPUs, state, running tasks. setWorkers()
// merges by name: changed rows get dataChanged, new ones are inserted, gone ones removed.
class WorkerModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, HostColumn, StateColumn, GpusColumn, CpusColumn, MemoryColumn,
                  SlotsColumn, RunningColumn, LastSeenColumn, TrustColumn, ColumnCount };
    // IdRole: the server's id of the worker (its utilisation is read by it).
    enum Role { StateRole = Qt::UserRole, IdRole };

    explicit WorkerModel(QObject *parent = nullptr);
    void setWorkers(const QJsonArray &workers);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<QJsonObject> m_workers;
};

} // namespace ddl::desktop
