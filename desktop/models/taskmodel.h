#pragma once

#include "wire/jobmessage.h"

#include <QAbstractTableModel>
#include <QList>

namespace ddl::desktop {

// The tasks of one job (its current attempt) as the server's job message lists them.
// setTasks() updates rows in place while the task ids stay the same.
class TaskModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { RoleColumn, IndexColumn, StateColumn, WorkerColumn, AddressColumn,
                  PortsColumn, GpusColumn, ExitCodeColumn, AttemptColumn, ColumnCount };
    enum Role { TaskIdRole = Qt::UserRole, StateRole };

    explicit TaskModel(QObject *parent = nullptr);

    void setTasks(const QList<TaskMessage> &tasks);
    qint64 taskId(int row) const;
    QString label(int row) const; // "worker #0"

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<TaskMessage> m_tasks;
};

} // namespace ddl::desktop
