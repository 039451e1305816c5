#pragma once

#include <QPersistentModelIndex>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace ddl::desktop {

class JobFilterProxy;
class JobListModel;

// The job list screen: state and text filters over a sortable table, refreshed in the
// background, with the context actions open (Enter), stop (Delete; several jobs at once), clone
// and copy uuid.
class JobListView : public QWidget
{
    Q_OBJECT
public:
    explicit JobListView(JobListModel *model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    JobFilterProxy *proxy() const { return m_proxy; }
    // Background refresh while the list is shown; 0 stops it.
    void setRefreshInterval(int ms);
    QString selectedUuid() const;
    // Puts the keyboard in the filter box (Ctrl+F).
    void focusSearch();
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
    void updateCount();
    // Widens the columns whose header text would be cut.
    void fitHeaders();
    // The selected rows' (uuid, name) of the jobs that can still be stopped.
    QList<QPair<QString, QString>> stoppableSelection() const;

    JobListModel *m_model;
    JobFilterProxy *m_proxy;
    QTableView *m_table;
    QComboBox *m_stateCombo;
    QLineEdit *m_searchEdit;
    QLabel *m_countLabel;
    QLabel *m_emptyHint; // what to do when there is no job to show
    QTimer m_refreshTimer;
    QPersistentModelIndex m_anchor; // the selected job while rows are removed
    int m_anchorTop = 0;
};

} // namespace ddl::desktop
