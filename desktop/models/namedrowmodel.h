#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace ddl::desktop {

// A table of the server's objects that have a unique "name" (datasets, images): a refresh merges
// the new list in by name, so that rows that stay keep their place and the selection.
class NamedRowModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role { NameRole = Qt::UserRole };

    using QAbstractTableModel::QAbstractTableModel;
    void setRows(const QJsonArray &rows);
    int rowOf(const QString &name) const;
    QJsonObject object(int row) const { return m_rows.value(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    // What the row shows in column, for Qt::DisplayRole.
    virtual QVariant display(const QJsonObject &row, int column) const = 0;
    // The server's ISO time, in the user's locale.
    static QString localTime(const QJsonValue &iso);

private:
    QList<QJsonObject> m_rows;
};

} // namespace ddl::desktop
