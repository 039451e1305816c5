#include "datasetmodel.h"

#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

int DatasetModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DatasetModel::display(const QJsonObject &dataset, int column) const
{
    switch (column) {
    case NameColumn:
        return dataset.value("name"_L1).toString();
    case FilesColumn:
        return dataset.value("file_count"_L1).toInteger();
    case SizeColumn:
        return QLocale().formattedDataSize(dataset.value("total_size"_L1).toInteger());
    case CreatedColumn:
        return localTime(dataset.value("created_at"_L1));
    }
    return {};
}

QVariant DatasetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case FilesColumn:
        return tr("Files");
    case SizeColumn:
        return tr("Size");
    case CreatedColumn:
        return tr("Uploaded");
    }
    return {};
}

} // namespace ddl::desktop
