#include "joblistmodel.h"

#include "api/apiclient.h"
#include "core/requestcallback.h"

#include <QJsonArray>
#include <QLocale>
#include <QSet>
#include <QUrlQuery>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

// The jobs of one answer of the job list (a page or a refresh).
static QList<JobRecord> jobsOf(const QJsonObject &answer)
{
    QList<JobRecord> jobs;
    for (const QJsonValue &job : answer.value("jobs"_L1).toArray())
        jobs.append(JobRecord::fromJson(job.toObject()));
    return jobs;
}

JobListModel::JobListModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void JobListModel::setClient(ApiClient *client)
{
    m_client = client;
    reload();
}

void JobListModel::setStateFilter(const QStringList &states)
{
    if (states == m_filter.states)
        return;
    m_filter.states = states;
    reload();
}

void JobListModel::setTextFilter(const QString &text)
{
    if (text.trimmed() == m_filter.name)
        return;
    m_filter.name = text.trimmed();
    reload();
}

bool JobListModel::isSortable(int column)
{
    return column == NameColumn || column == StateColumn || column == PriorityColumn
           || column == SubmittedColumn;
}

void JobListModel::sort(int column, Qt::SortOrder order)
{
    if (column >= 0 && !isSortable(column))
        return;
    if (column < 0)
        order = Qt::DescendingOrder;
    if (column == m_sortColumn && order == m_sortOrder)
        return;
    static const QHash<int, QString> Keys{{NameColumn, u"name"_s},
                                          {StateColumn, u"state"_s},
                                          {PriorityColumn, u"priority"_s},
                                          {SubmittedColumn, u"submitted"_s}};
    m_sortColumn = column;
    m_sortOrder = order;
    m_filter.sort = Keys.value(column);
    m_filter.order = column < 0 ? QString()
                                : order == Qt::AscendingOrder ? u"asc"_s : u"desc"_s;
    reload();
}

JobListQuery JobListModel::query(int limit, int offset) const
{
    JobListQuery query = m_filter;
    query.limit = limit;
    query.offset = offset;
    return query;
}

void JobListModel::reload()
{
    // A different list (filter, server or user): the one place the model resets.
    beginResetModel();
    m_rows.clear();
    m_rowByUuid.clear();
    m_total = -1;
    m_fetching = false;
    m_refreshing = false;
    ++m_generation;
    endResetModel();
    if (m_client)
        fetchMore({});
}

int JobListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int JobListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const JobRecord *JobListModel::record(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows.at(row) : nullptr;
}

QVariant JobListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const JobRecord &job = m_rows.at(index.row());
    switch (role) {
    case UuidRole:
        return job.uuid;
    case StateRole:
        return job.state;
    case Qt::ForegroundRole:
        if (index.column() == StateColumn)
            return JobStateStyle::color(job.state);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == StateColumn && !job.reason.isEmpty())
            return job.reason;
        if (index.column() == NameColumn)
            return job.uuid;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == TasksColumn || index.column() == GpusColumn
            || index.column() == RetriesColumn || index.column() == PriorityColumn
            || index.column() == DurationColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (index.column()) {
        case NameColumn: return job.name;
        case StateColumn: return job.state;
        case TasksColumn: return job.tasks;
        case GpusColumn: return job.gpus;
        case RetriesColumn: return job.attempt - 1;
        case PriorityColumn: return job.priority;
        case SubmittedColumn: return job.createdAt;
        case DurationColumn: return job.durationSeconds(QDateTime::currentDateTimeUtc());
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return job.name;
        case StateColumn: return JobStateStyle::displayName(job.state);
        case TasksColumn: return job.tasks;
        case GpusColumn: return job.gpus;
        case RetriesColumn:
            return job.retryCount > 0 ? tr("%1 of %2").arg(job.attempt - 1).arg(job.retryCount)
                                      : QString::number(job.attempt - 1);
        case PriorityColumn: return job.priority;
        case SubmittedColumn:
            return QLocale().toString(job.createdAt.toLocalTime(), QLocale::ShortFormat);
        case DurationColumn:
            return JobStateStyle::formatDuration(
                job.durationSeconds(QDateTime::currentDateTimeUtc()));
        }
        return {};
    }
    return {};
}

QVariant JobListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case StateColumn: return tr("State");
    case TasksColumn: return tr("Tasks");
    case GpusColumn: return tr("GPUs");
    case RetriesColumn: return tr("Retries");
    case PriorityColumn: return tr("Priority");
    case SubmittedColumn: return tr("Submitted");
    case DurationColumn: return tr("Duration");
    }
    return {};
}

bool JobListModel::canFetchMore(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_client || m_fetching)
        return false;
    return m_total < 0 || m_rows.size() < m_total;
}

void JobListModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_fetching = true;
    const int generation = m_generation;
    whenFinished(
        m_client->listJobs(query(PageSize, int(m_rows.size()))), this, [this, generation](const Result<ApiResponse> &result) {
            if (generation != m_generation)
                return;
            m_fetching = false;
            if (!result) {
                emit loadFailed(result.error());
                return;
            }
            const QJsonObject answer = result->json();
            appendPage(jobsOf(answer), answer.value("total"_L1).toInteger());
        });
}

void JobListModel::appendPage(const QList<JobRecord> &jobs, qint64 total)
{
    QList<JobRecord> fresh;
    fresh.reserve(jobs.size());
    for (const JobRecord &job : jobs) {
        if (!m_rowByUuid.contains(job.uuid))
            fresh.append(job);
    }
    // The server's total may have grown since; never ask for more than it has.
    m_total = std::max<qint64>(total, m_rows.size() + fresh.size());
    if (fresh.isEmpty()) {
        // Nothing new on this page (a refresh got there first): the list is complete so far.
        if (jobs.isEmpty())
            m_total = m_rows.size();
        emit pageLoaded(0);
        return;
    }
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(fresh.size()) - 1);
    for (const JobRecord &job : fresh) {
        m_rowByUuid.insert(job.uuid, int(m_rows.size()));
        m_rows.append(job);
    }
    endInsertRows();
    emit pageLoaded(int(fresh.size()));
}

void JobListModel::dropLeftRows(const QList<JobRecord> &jobs, qint64 total)
{
    // The rows the answer covers: all of them when it holds the whole list, else those down to
    // the last known job it returned (rows below may simply be past its limit).
    QSet<QString> answered;
    int coveredEnd = 0;
    for (const JobRecord &job : jobs) {
        answered.insert(job.uuid);
        coveredEnd = std::max(coveredEnd, m_rowByUuid.value(job.uuid, -1) + 1);
    }
    if (jobs.size() >= total)
        coveredEnd = int(m_rows.size());
    // Bottom up, one removal per run of adjacent rows, so the rows above keep their numbers.
    int lowest = -1;
    for (int row = coveredEnd - 1; row >= 0;) {
        if (answered.contains(m_rows.at(row).uuid)) {
            --row;
            continue;
        }
        int first = row;
        while (first > 0 && !answered.contains(m_rows.at(first - 1).uuid))
            --first;
        beginRemoveRows({}, first, row);
        for (int i = first; i <= row; ++i)
            m_rowByUuid.remove(m_rows.at(i).uuid);
        m_rows.remove(first, row - first + 1);
        endRemoveRows();
        lowest = first;
        row = first - 1;
    }
    if (lowest >= 0)
        reindexFrom(lowest);
}

void JobListModel::mergeRefresh(const QList<JobRecord> &jobs, qint64 total)
{
    dropLeftRows(jobs, total);
    QList<JobRecord> fresh;
    for (const JobRecord &job : jobs) {
        const int row = m_rowByUuid.value(job.uuid, -1);
        if (row < 0) {
            fresh.append(job);
            continue;
        }
        if (m_rows.at(row) == job)
            continue;
        m_rows[row] = job;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    if (!fresh.isEmpty()) {
        // New jobs go on top, in the server's order: where the newest are, and where
        // followOrder() takes them from under any other order.
        beginInsertRows({}, 0, int(fresh.size()) - 1);
        m_rows.insert(0, fresh.size(), JobRecord());
        for (qsizetype i = 0; i < fresh.size(); ++i)
            m_rows[i] = fresh.at(i);
        reindexFrom(0);
        endInsertRows();
    }
    followOrder(jobs);
    m_total = std::max<qint64>(total, m_rows.size());
    emit refreshed();
}

void JobListModel::followOrder(const QList<JobRecord> &jobs)
{
    bool same = true;
    for (qsizetype i = 0; i < jobs.size() && same; ++i)
        same = m_rows.at(i).uuid == jobs.at(i).uuid;
    if (same)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    QStringList uuids;
    for (const QModelIndex &index : before)
        uuids << m_rows.at(index.row()).uuid;
    for (qsizetype i = 0; i < jobs.size(); ++i)
        m_rows[i] = jobs.at(i);
    reindexFrom(0);
    QModelIndexList after;
    for (qsizetype i = 0; i < before.size(); ++i)
        after << index(m_rowByUuid.value(uuids.at(i)), before.at(i).column());
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void JobListModel::reindexFrom(int row)
{
    for (int i = row; i < m_rows.size(); ++i)
        m_rowByUuid.insert(m_rows.at(i).uuid, i);
}

void JobListModel::refresh()
{
    if (!m_client || m_refreshing)
        return;
    m_refreshing = true;
    const int generation = m_generation;
    whenFinished(
        m_client->listJobs(query(std::clamp(int(m_rows.size()), PageSize, MaxRefreshRows), 0)), this, [this, generation](const Result<ApiResponse> &result) {
            if (generation != m_generation)
                return;
            m_refreshing = false;
            if (!result) {
                emit loadFailed(result.error());
                return;
            }
            const QJsonObject answer = result->json();
            mergeRefresh(jobsOf(answer), answer.value("total"_L1).toInteger());
        });
}

} // namespace ddl::desktop
