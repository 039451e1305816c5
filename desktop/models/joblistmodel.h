#pragma once

#include "core/error.h"
#include "models/jobrecord.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QPointer>

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

// The user's jobs, newest first, loaded with ApiClient::listJobs page by page as the view scrolls
// (canFetchMore/fetchMore), so 100,000 jobs cost only what is shown. refresh() re-reads the top
// of the list and merges it: changed rows get dataChanged, new jobs are inserted above, jobs the
// server no longer lists under the state filter are removed; the model is never reset for a
// refresh, so selection and scroll position stay.
class JobListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, StateColumn, TasksColumn, GpusColumn, RetriesColumn,
                  SubmittedColumn, DurationColumn, ColumnCount };
    enum Role { UuidRole = Qt::UserRole, StateRole, SortRole };

    static constexpr int PageSize = 500;
    static constexpr int MaxRefreshRows = 1000;

    explicit JobListModel(QObject *parent = nullptr);

    // No client: the model only holds what appendPage/mergeRefresh give it (benchmarks).
    void setClient(ApiClient *client);
    // A server-side state filter ("" for all): a different list, so the model starts over.
    void setStateFilter(const QString &state);
    QString stateFilter() const { return m_stateFilter; }

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
    void dropLeftRows(const QList<JobRecord> &jobs, qint64 total);
    void reindexFrom(int row);

    QPointer<ApiClient> m_client;
    QString m_stateFilter;
    QList<JobRecord> m_rows;
    QHash<QString, int> m_rowByUuid;
    qint64 m_total = -1; // unknown until the first page
    bool m_fetching = false;
    bool m_refreshing = false;
    int m_generation = 0; // answers of an older list (before a filter change) are dropped
};

} // namespace ddl::desktop
