#pragma once

#include <QPersistentModelIndex>
#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QMenu;
class QTableView;
class QToolButton;

namespace ddl::desktop {

class JobListModel;

// The job list screen: state (several at once) and text filters over a table sorted by a
// header click, all done by the server, refreshed in the background, with the context actions
// open (Enter), stop (Delete; several jobs at once), clone and copy uuid.
class JobListView : public QWidget
{
    Q_OBJECT
public:
    explicit JobListView(JobListModel *model, QWidget *parent = nullptr);

    // How long typing in the filter box waits before it asks the server.
    static constexpr int TextFilterDelayMs = 300;

    QTableView *table() const { return m_table; }
    // The states the filter menu offers, as checkable actions with the state as their data.
    QList<QAction *> stateActions() const;
    // Background refresh while the list is shown; 0 stops it.
    void setRefreshInterval(int ms);
    QString selectedUuid() const;
    // Puts the keyboard in the filter box (Ctrl+F).
    void focusSearch();
    // Shows the jobs in this one state (the home page's counts lead here).
    void showOnlyState(const QString &state);
    // Stops the selected jobs that can stop, after one confirmation (Delete, or the menu).
    void cancelSelected();
    // Takes the filters, sorting, column widths, selection, scroll position and refresh of the
    // view this one replaces (the main window rebuilds its views when the language changes).
    void takeStateFrom(const JobListView &old);

signals:
    void openRequested(const QString &uuid);
    void cancelRequested(const QStringList &uuids, const QStringList &names);
    void cloneRequested(const QString &uuid);
    void newJobRequested();

private:
    void showContextMenu(const QPoint &position);
    void applyStateFilter();
    void updateCount();
    // Widens the columns whose header text would be cut.
    void fitHeaders();
    // The selected rows' (uuid, name) of the jobs that can still be stopped.
    QList<QPair<QString, QString>> stoppableSelection() const;

    JobListModel *m_model;
    QTableView *m_table;
    QToolButton *m_stateButton;
    QMenu *m_stateMenu;
    QLineEdit *m_searchEdit;
    QTimer m_textDelay;
    QLabel *m_countLabel;
    QLabel *m_emptyHint; // what to do when there is no job to show
    QTimer m_refreshTimer;
    QPersistentModelIndex m_anchor; // the selected job while rows are removed
    int m_anchorTop = 0;
};

} // namespace ddl::desktop
