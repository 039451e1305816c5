#pragma once

#include <QHash>
#include <QJsonObject>
#include <QMainWindow>
#include <QPointer>

#include <functional>

#include "jobspec/jobspec.h"

class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace ddl::desktop {

class ConnectPage;
class DesktopSettings;
class JobDetailView;
class JobListModel;
class JobListView;
class JobWatcher;
class MessageBar;
class NavigationList;
class Session;
class SubmitWizard;
class TokenStore;
class TrayNotifier;

// The application window: the connect page until a user is logged in, then the workspace: the
// pages (jobs, editor, workers, datasets, and one per opened job) with a navigation list.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(DesktopSettings &settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    Session *session() const { return m_session; }
    ConnectPage *connectPage() const { return m_connectPage; }
    JobListModel *jobModel() const { return m_jobModel; }
    JobListView *jobListView() const { return m_jobListView; }
    QTabWidget *workspace() const { return m_workspace; }
    NavigationList *navigation() const { return m_navigation; }
    MessageBar *messages() const { return m_messages; }
    TrayNotifier *notifier() const { return m_notifier; }
    JobWatcher *watcher() const { return m_watcher; }
    bool isLoggedIn() const;

    // Opens (or shows) the job's tab.
    JobDetailView *openJob(const QString &uuid);
    JobDetailView *jobView(const QString &uuid) const;
    // Tries the session kept from the last run; stays on the connect page otherwise.
    void restoreSession();
    // The submit wizard, starting from spec; the submitted job is watched and opened.
    SubmitWizard *openSubmitWizard(const ddl::JobSpec &spec);
    // Adds a tab to the workspace (editor, workers, datasets plug in here).
    void addWorkspaceTab(QWidget *widget, const QString &title);
    // Whoever plugs tabs in (WorkspaceBuilder): run now, and again whenever the views are
    // rebuilt, so that a rebuilt window has the same tabs.
    void setWorkspaceBuilder(std::function<void(MainWindow &)> builder);
    // While the views are rebuilt: the workspace tab of this object name that is being
    // replaced, so that its successor can take over what it holds (or it is kept as it is).
    QWidget *retiredView(const QString &objectName) const;

    // Makes language ("" = the system's) the language of the running window and of the next
    // start: installs its translation, then rebuilds the views in it.
    void setLanguage(const QString &language);
    // Builds the menus, the connect page and the workspace tabs again in the current language,
    // keeping the session, the open jobs, the current tab, filters and whatever was typed.
    void rebuildViews();

signals:
    void cloneRequested(const QJsonObject &spec);
    void newJobRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void handleLoggedIn(const QString &email);
    void handleLoggedOut();
    // Asks once, naming them, then stops the jobs.
    void cancelJobs(const QStringList &uuids, const QStringList &names);
    // Closes the page at index if it is a job's (the fixed pages stay).
    void closeJobTab(int index);
    void focusSearch();
    void refreshCurrent();
    void cloneJob(const QString &uuid);
    void createMenus();
    void createJobListView();
    void updateWindowTitle();

    DesktopSettings &m_settings;
    TokenStore *m_tokens;
    Session *m_session;
    QStackedWidget *m_stack;
    ConnectPage *m_connectPage;
    QSplitter *m_workspaceArea;
    QTabWidget *m_workspace;
    NavigationList *m_navigation;
    MessageBar *m_messages;
    JobListModel *m_jobModel;
    JobListView *m_jobListView;
    JobWatcher *m_watcher;
    TrayNotifier *m_notifier;
    QHash<QString, QPointer<JobDetailView>> m_jobViews;
    std::function<void(MainWindow &)> m_builder;
    QHash<QString, QPointer<QWidget>> m_retired; // only while rebuilding
    bool m_rebuildPending = false;
};

} // namespace ddl::desktop
