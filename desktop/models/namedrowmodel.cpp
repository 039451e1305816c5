#include "namedrowmodel.h"

#include <QDateTime>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static QString nameOf(const QJsonObject &row)
{
    return row.value("name"_L1).toString();
}

int NamedRowModel::rowOf(const QString &name) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (nameOf(m_rows.at(row)) == name)
            return row;
    }
    return -1;
}

void NamedRowModel::setRows(const QJsonArray &rows)
{
    QList<QJsonObject> next;
    for (const QJsonValue &row : rows)
        next.append(row.toObject());
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        const bool kept = std::any_of(next.cbegin(), next.cend(), [&](const QJsonObject &o) {
            return nameOf(o) == nameOf(m_rows.at(row));
        });
        if (!kept) {
            beginRemoveRows({}, row, row);
            m_rows.removeAt(row);
            endRemoveRows();
        }
    }
    for (const QJsonObject &object : next) {
        const int row = rowOf(nameOf(object));
        if (row < 0) {
            const int at = int(m_rows.size());
            beginInsertRows({}, at, at);
            m_rows.append(object);
            endInsertRows();
        } else if (m_rows.at(row) != object) {
            m_rows[row] = object;
            emit dataChanged(index(row, 0), index(row, columnCount() - 1));
        }
    }
}

int NamedRowModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant NamedRowModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &row = m_rows.at(index.row());
    if (role == NameRole)
        return nameOf(row);
    return role == Qt::DisplayRole ? display(row, index.column()) : QVariant();
}

QString NamedRowModel::localTime(const QJsonValue &iso)
{
    const QDateTime time = QDateTime::fromString(iso.toString(), Qt::ISODateWithMs);
    return QLocale().toString(time.toLocalTime(), QLocale::ShortFormat);
}

} // namespace ddl::desktop
