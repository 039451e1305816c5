#include "joblistview.h"

#include "models/joblistmodel.h"
#include "wire/jobstate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JobListView::JobListView(JobListModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    m_stateButton = new QToolButton(this);
    m_stateButton->setObjectName(u"stateFilter"_s);
    m_stateButton->setPopupMode(QToolButton::InstantPopup);
    m_stateButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_stateMenu = new QMenu(m_stateButton);
    QAction *all = m_stateMenu->addAction(tr("All states"));
    all->setObjectName(u"allStates"_s);
    connect(all, &QAction::triggered, this, [this] {
        for (QAction *action : stateActions()) {
            const QSignalBlocker quiet(action);
            action->setChecked(false);
        }
        applyStateFilter();
    });
    m_stateMenu->addSeparator();
    for (const QString &state : allStateNames()) {
        QAction *action = m_stateMenu->addAction(JobStateStyle::displayName(state));
        action->setCheckable(true);
        action->setData(state);
        connect(action, &QAction::toggled, this, &JobListView::applyStateFilter);
    }
    m_stateButton->setMenu(m_stateMenu);
    m_stateButton->setText(tr("All states"));
    m_searchEdit = new QLineEdit(this);
    m_searchEdit->setObjectName(u"searchEdit"_s);
    m_searchEdit->setPlaceholderText(tr("Filter by name or uuid"));
    m_searchEdit->setClearButtonEnabled(true);
    m_countLabel = new QLabel(this);
    m_countLabel->setObjectName(u"jobCount"_s);
    auto *refresh = new QPushButton(tr("Refresh"), this);
    auto *newJob = new QPushButton(tr("New job…"), this);
    newJob->setObjectName(u"newJobButton"_s);

    m_table = new QTableView(this);
    m_table->setObjectName(u"jobTable"_s);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSortIndicator(m_model->sortColumn(), m_model->sortOrder());
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    // Fixed row heights: the view never measures 100,000 rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(JobListModel::NameColumn, 260);
    m_table->setColumnWidth(JobListModel::StateColumn, 110);
    m_table->setColumnWidth(JobListModel::SubmittedColumn, 150);
    fitHeaders();

    m_emptyHint = new QLabel(this);
    m_emptyHint->setObjectName(u"emptyHint"_s);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->hide();

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_stateButton);
    bar->addWidget(m_searchEdit, 1);
    bar->addWidget(m_countLabel);
    bar->addWidget(refresh);
    bar->addWidget(newJob);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_emptyHint);
    layout->addWidget(m_table);

    // Enter opens the current job (activated: Enter, or the platform's click to open).
    auto *stop = new QAction(tr("Stop selected jobs"), m_table);
    stop->setShortcut(QKeySequence::Delete);
    stop->setShortcutContext(Qt::WidgetShortcut);
    connect(stop, &QAction::triggered, this, &JobListView::cancelSelected);
    m_table->addAction(stop);

    // The server filters: wait for a pause in the typing, then ask once.
    m_textDelay.setSingleShot(true);
    m_textDelay.setInterval(TextFilterDelayMs);
    connect(m_searchEdit, &QLineEdit::textChanged, &m_textDelay, qOverload<>(&QTimer::start));
    connect(&m_textDelay, &QTimer::timeout, this,
            [this] { m_model->setTextFilter(m_searchEdit->text()); });
    // A column the server cannot order by keeps the list as it is, and says so by its header.
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            [this](int column) {
                if (column >= 0 && !JobListModel::isSortable(column))
                    m_table->horizontalHeader()->setSortIndicator(m_model->sortColumn(),
                                                                  m_model->sortOrder());
            });
    connect(refresh, &QPushButton::clicked, m_model, &JobListModel::refresh);
    connect(newJob, &QPushButton::clicked, this, &JobListView::newJobRequested);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        emit openRequested(index.data(JobListModel::UuidRole).toString());
    });
    connect(m_table, &QTableView::customContextMenuRequested, this,
            &JobListView::showContextMenu);
    connect(m_model, &JobListModel::pageLoaded, this, &JobListView::updateCount);
    connect(m_model, &JobListModel::refreshed, this, &JobListView::updateCount);
    connect(m_model, &JobListModel::modelReset, this, &JobListView::updateCount);
    connect(&m_refreshTimer, &QTimer::timeout, m_model, &JobListModel::refresh);
    // A refresh drops jobs that left the filtered state; rows leaving above the selected job
    // would move it on screen, so the view scrolls to keep it where it was.
    connect(m_model, &QAbstractItemModel::rowsAboutToBeRemoved, this, [this] {
        m_anchor = m_table->currentIndex();
        m_anchorTop = m_anchor.isValid() ? m_table->visualRect(m_anchor).top() : 0;
    });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_anchor.isValid())
            return;
        const int shift = m_table->visualRect(m_anchor).top() - m_anchorTop;
        m_anchor = QPersistentModelIndex();
        if (shift == 0)
            return;
        QScrollBar *bar = m_table->verticalScrollBar();
        const int rowHeight = std::max(1, m_table->verticalHeader()->defaultSectionSize());
        bar->setValue(bar->value()
                      + (m_table->verticalScrollMode() == QAbstractItemView::ScrollPerPixel
                             ? shift
                             : shift / rowHeight));
    });
}

QList<QAction *> JobListView::stateActions() const
{
    QList<QAction *> states = m_stateMenu->actions();
    states.removeIf([](const QAction *action) { return !action->isCheckable(); });
    return states;
}

void JobListView::applyStateFilter()
{
    QStringList states;
    QStringList shown;
    for (const QAction *action : stateActions()) {
        if (action->isChecked()) {
            states << action->data().toString();
            shown << action->text();
        }
    }
    m_stateButton->setText(shown.isEmpty() ? tr("All states") : shown.join(u", "_s));
    m_model->setStateFilter(states);
}

void JobListView::showOnlyState(const QString &state)
{
    for (QAction *action : stateActions()) {
        const QSignalBlocker quiet(action);
        action->setChecked(action->data().toString() == state);
    }
    applyStateFilter();
}

void JobListView::setRefreshInterval(int ms)
{
    if (ms > 0)
        m_refreshTimer.start(ms);
    else
        m_refreshTimer.stop();
}

QString JobListView::selectedUuid() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? current.data(JobListModel::UuidRole).toString() : QString();
}

void JobListView::takeStateFrom(const JobListView &old)
{
    const QList<QAction *> oldStates = old.stateActions();
    const QList<QAction *> states = stateActions();
    for (qsizetype i = 0; i < states.size(); ++i) {
        const QSignalBlocker quiet(states.at(i)); // one filter change, not one per state
        states.at(i)->setChecked(oldStates.at(i)->isChecked());
    }
    applyStateFilter();
    m_searchEdit->setText(old.m_searchEdit->text());
    m_textDelay.stop(); // the model has that text already
    m_table->horizontalHeader()->restoreState(old.m_table->horizontalHeader()->saveState());
    fitHeaders(); // the widths kept were for the old language's words
    if (old.m_refreshTimer.isActive())
        m_refreshTimer.start(old.m_refreshTimer.interval());
    const QString uuid = old.selectedUuid();
    const int row = m_model->rowOf(uuid);
    if (row >= 0)
        m_table->setCurrentIndex(m_model->index(row, 0));
    // The scroll range exists once the table is laid out in its new place.
    const int scroll = old.m_table->verticalScrollBar()->value();
    QTimer::singleShot(0, m_table, [table = m_table, scroll] {
        table->verticalScrollBar()->setValue(scroll);
    });
    updateCount();
}

void JobListView::fitHeaders()
{
    // No header cut short in any language ("Wiederholungen" is wider than the default width).
    QHeaderView *header = m_table->horizontalHeader();
    for (int column = 0; column < header->count(); ++column) {
        const int needed = header->sectionSizeHint(column);
        if (header->sectionSize(column) < needed)
            header->resizeSection(column, needed);
    }
}

void JobListView::focusSearch()
{
    m_searchEdit->setFocus(Qt::ShortcutFocusReason);
    m_searchEdit->selectAll();
}

void JobListView::updateCount()
{
    if (m_model->total() < 0)
        m_countLabel->clear();
    else
        m_countLabel->setText(tr("%n job(s)", nullptr, int(m_model->total())));
    // An empty list says why, and what to do.
    const bool filtered = m_model->isFiltered();
    if (m_model->total() == 0 && !filtered)
        m_emptyHint->setText(tr("No jobs yet. Click \"New job…\" to submit a project, or run "
                                "\"ddlcli submit\" in the project's folder."));
    else if (m_model->total() == 0 && filtered)
        m_emptyHint->setText(tr("No job matches the filter."));
    else
        m_emptyHint->clear();
    m_emptyHint->setVisible(!m_emptyHint->text().isEmpty());
}

QList<QPair<QString, QString>> JobListView::stoppableSelection() const
{
    QList<QPair<QString, QString>> jobs;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows(JobListModel::NameColumn);
    for (const QModelIndex &row : rows) {
        const QString state = row.data(JobListModel::StateRole).toString();
        if (!isFinalState(state))
            jobs.append({row.data(JobListModel::UuidRole).toString(), row.data().toString()});
    }
    return jobs;
}

void JobListView::cancelSelected()
{
    QStringList uuids;
    QStringList names;
    for (const auto &[uuid, name] : stoppableSelection()) {
        uuids << uuid;
        names << name;
    }
    if (!uuids.isEmpty())
        emit cancelRequested(uuids, names);
}

void JobListView::showContextMenu(const QPoint &position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid())
        return;
    const QString uuid = index.data(JobListModel::UuidRole).toString();
    // The menu acts on the selection when the click is in it, else on the clicked job alone.
    if (!m_table->selectionModel()->isRowSelected(index.row(), index.parent()))
        m_table->setCurrentIndex(index);
    const qsizetype stoppable = stoppableSelection().size();
    QMenu menu(this);
    menu.addAction(tr("Open"), this, [this, uuid] { emit openRequested(uuid); });
    const int shown = int(std::max<qsizetype>(1, stoppable));
    QAction *cancel = menu.addAction(tr("Stop %n job(s)…", nullptr, shown), this,
                                     &JobListView::cancelSelected);
    cancel->setEnabled(stoppable > 0);
    menu.addAction(tr("Clone into the editor"), this, [this, uuid] { emit cloneRequested(uuid); });
    menu.addAction(tr("Copy uuid"), this, [uuid] { QApplication::clipboard()->setText(uuid); });
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

} // namespace ddl::desktop
