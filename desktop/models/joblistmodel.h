#pragma once

#include "api/apiclient.h"
#include "core/error.h"
#include "models/jobrecord.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QPointer>

namespace ddl::desktop {

// The user's jobs as the server filters (states, text) and sorts them, newest first unless
// sort() says otherwise, loaded with ApiClient::listJobs page by page as the view scrolls
// (canFetchMore/fetchMore), so 100,000 jobs cost only what is shown. refresh() re-reads the top
// of the list and merges it: changed rows get dataChanged, new jobs are inserted, jobs the
// server no longer lists under the filter are removed, rows whose place in the order changed
// move (a layout change); the model is never reset for a refresh, so selection and scroll
// position stay.
class JobListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, StateColumn, TasksColumn, GpusColumn, RetriesColumn,
                  PriorityColumn, SubmittedColumn, DurationColumn, ColumnCount };
    enum Role { UuidRole = Qt::UserRole, StateRole, SortRole };

    static constexpr int PageSize = 500;
    static constexpr int MaxRefreshRows = 1000;

    explicit JobListModel(QObject *parent = nullptr);

    // No client: the model only holds what appendPage/mergeRefresh give it (benchmarks).
    void setClient(ApiClient *client);
    // The server's filters: the states (none: all) and a text that the name contains or the
    // uuid starts with. A different list, so the model starts over.
    void setStateFilter(const QStringList &states);
    QStringList stateFilter() const { return m_filter.states; }
    void setTextFilter(const QString &text);
    QString textFilter() const { return m_filter.name; }
    bool isFiltered() const { return !m_filter.states.isEmpty() || !m_filter.name.isEmpty(); }
    // The server sorts by name, state, priority or submission; other columns keep the order.
    // Column -1: the server's own order, newest first.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    static bool isSortable(int column);
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_sortOrder; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    void refresh();
    void reload();
    const JobRecord *record(int row) const;
    int rowOf(const QString &uuid) const { return m_rowByUuid.value(uuid, -1); }
    qint64 total() const { return m_total; }
    bool isFetching() const { return m_fetching; }

    // Rows from one page at the end (already-known jobs skipped).
    void appendPage(const QList<JobRecord> &jobs, qint64 total);
    // The top of the list as the server has it now: updates rows in place, inserts new jobs
    // and removes the rows it no longer lists (a job that left the filtered state).
    void mergeRefresh(const QList<JobRecord> &jobs, qint64 total);

signals:
    void pageLoaded(int rows);
    void refreshed();
    void loadFailed(const ddl::Error &error);

private:
    JobListQuery query(int limit, int offset) const;
    void dropLeftRows(const QList<JobRecord> &jobs, qint64 total);
    // Puts the top rows (the answer's jobs, all known by now) in the answer's order.
    void followOrder(const QList<JobRecord> &jobs);
    void reindexFrom(int row);

    QPointer<ApiClient> m_client;
    JobListQuery m_filter; // states, name, sort and order; no page
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
    QList<JobRecord> m_rows;
    QHash<QString, int> m_rowByUuid;
    qint64 m_total = -1; // unknown until the first page
    bool m_fetching = false;
    bool m_refreshing = false;
    int m_generation = 0; // answers of an older list (before a filter change) are dropped
};

} // namespace ddl::desktop
