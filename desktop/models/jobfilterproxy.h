#pragma once

#include <QSortFilterProxyModel>

namespace ddl::desktop {

// Sorts the job list by each column's SortRole value and keeps the rows whose name or uuid
// holds the filter text. The state filter is the server's (JobListModel::setStateFilter).
class JobFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit JobFilterProxy(QObject *parent = nullptr);
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
};

} // namespace ddl::desktop
