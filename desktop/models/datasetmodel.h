#pragma once

#include "namedrowmodel.h"

namespace ddl::desktop {

// The user's datasets (ApiClient::datasets), merged by name like the worker list.
class DatasetModel : public NamedRowModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, FilesColumn, SizeColumn, CreatedColumn, ColumnCount };

    using NamedRowModel::NamedRowModel;
    void setDatasets(const QJsonArray &datasets) { setRows(datasets); }
    QJsonObject dataset(int row) const { return object(row); }

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant
    headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    QVariant display(const QJsonObject &dataset, int column) const override;
};

} // namespace ddl::desktop
