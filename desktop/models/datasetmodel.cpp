#include "datasetmodel.h"

#include <QDateTime>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

DatasetModel::DatasetModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

static QString nameOf(const QJsonObject &dataset)
{
    return dataset.value("name"_L1).toString();
}

int DatasetModel::rowOf(const QString &name) const
{
    for (int row = 0; row < m_datasets.size(); ++row) {
        if (nameOf(m_datasets.at(row)) == name)
            return row;
    }
    return -1;
}

void DatasetModel::setDatasets(const QJsonArray &datasets)
{
    QList<QJsonObject> next;
    for (const QJsonValue &dataset : datasets)
        next.append(dataset.toObject());
    for (int row = int(m_datasets.size()) - 1; row >= 0; --row) {
        const bool kept = std::any_of(next.cbegin(), next.cend(), [&](const QJsonObject &d) {
            return nameOf(d) == nameOf(m_datasets.at(row));
        });
        if (!kept) {
            beginRemoveRows({}, row, row);
            m_datasets.removeAt(row);
            endRemoveRows();
        }
    }
    for (const QJsonObject &dataset : next) {
        const int row = rowOf(nameOf(dataset));
        if (row < 0) {
            const int at = int(m_datasets.size());
            beginInsertRows({}, at, at);
            m_datasets.append(dataset);
            endInsertRows();
        } else if (m_datasets.at(row) != dataset) {
            m_datasets[row] = dataset;
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }
}

int DatasetModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_datasets.size());
}

int DatasetModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DatasetModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &dataset = m_datasets.at(index.row());
    if (role == NameRole)
        return nameOf(dataset);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NameColumn: return nameOf(dataset);
    case FilesColumn: return dataset.value("file_count"_L1).toInteger();
    case SizeColumn:
        return QLocale().formattedDataSize(dataset.value("total_size"_L1).toInteger());
    case CreatedColumn: {
        const QDateTime created = QDateTime::fromString(dataset.value("created_at"_L1).toString(),
                                                        Qt::ISODateWithMs);
        return QLocale().toString(created.toLocalTime(), QLocale::ShortFormat);
    }
    }
    return {};
}

QVariant DatasetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case FilesColumn: return tr("Files");
    case SizeColumn: return tr("Size");
    case CreatedColumn: return tr("Uploaded");
    }
    return {};
}

} // namespace ddl::desktop
