#include "jobfilterproxy.h"

#include "models/joblistmodel.h"

namespace ddl::desktop {

JobFilterProxy::JobFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(JobListModel::SortRole);
    setDynamicSortFilter(true);
}

void JobFilterProxy::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

bool JobFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_text.isEmpty())
        return true;
    const QModelIndex name = sourceModel()->index(sourceRow, JobListModel::NameColumn, sourceParent);
    return name.data(Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive)
           || name.data(JobListModel::UuidRole).toString().startsWith(m_text, Qt::CaseInsensitive);
}

} // namespace ddl::desktop
