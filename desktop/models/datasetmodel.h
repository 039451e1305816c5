#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace ddl::desktop {

// The user's datasets (ApiClient::datasets), merged by name like the worker list.
class DatasetModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, FilesColumn, SizeColumn, CreatedColumn, ColumnCount };
    enum Role { NameRole = Qt::UserRole };

    explicit DatasetModel(QObject *parent = nullptr);
    void setDatasets(const QJsonArray &datasets);
    int rowOf(const QString &name) const;
    QJsonObject dataset(int row) const { return m_datasets.value(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<QJsonObject> m_datasets;
};

} // namespace ddl::desktop
