#include "mainwindow.h"

#include "api/apiclient.h"
#include "app/desktopapp.h"
#include "core/desktopsettings.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "core/session.h"
#include "core/tokenstore.h"
#include "jobs/jobwatcher.h"
#include "models/joblistmodel.h"
#include "views/connectpage.h"
#include "views/jobdetailview.h"
#include "views/joblistview.h"
#include "views/logview.h"
#include "views/messagebar.h"
#include "views/navigationlist.h"
#include "views/stopconfirmation.h"
#include "views/traynotifier.h"
#include "views/workspacetabs.h"
#include "wizard/submitwizard.h"
#include "wire/jobmessage.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenuBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <memory>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

// How often the job list asks the server for changes while it is shown.
static constexpr int JobListRefreshMs = 3000;

MainWindow::MainWindow(DesktopSettings &settings, QWidget *parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_tokens(new TokenStore(settings.directory(), settings.useKeychain(), this))
    , m_session(new Session(settings, *m_tokens, this))
{
    setWindowTitle(tr("DDL"));
    resize(1100, 720);
    m_stack = new QStackedWidget(this);
    m_connectPage = new ConnectPage(*m_session, settings, m_stack);
    // The pages on the right, and on the left the list of them that stands in for a tab bar:
    // fixed pages stay in view however many jobs are open.
    m_workspaceArea = new QSplitter(Qt::Horizontal, m_stack);
    auto *workspace = new WorkspaceTabs(m_workspaceArea);
    m_workspace = workspace;
    m_workspace->setObjectName(u"workspace"_s);
    m_workspace->setDocumentMode(true);
    m_workspace->setTabsClosable(true);
    m_workspace->tabBar()->hide();
    m_navigation = new NavigationList(m_workspace, m_workspaceArea);
    m_workspaceArea->addWidget(m_navigation);
    m_workspaceArea->addWidget(m_workspace);
    m_workspaceArea->setStretchFactor(1, 1);
    m_workspaceArea->setSizes({180, 920});
    connect(workspace, &WorkspaceTabs::pagesChanged, m_navigation, &NavigationList::scheduleSync);
    connect(m_navigation, &NavigationList::closeRequested, this, &MainWindow::closeJobTab);
    m_jobModel = new JobListModel(this);
    createJobListView();
    m_stack->addWidget(m_connectPage);
    m_stack->addWidget(m_workspaceArea);
    // Errors over everything, whole; the stack below.
    auto *central = new QWidget(this);
    m_messages = new MessageBar(central);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_messages);
    centralLayout->addWidget(m_stack, 1);
    setCentralWidget(central);
    m_watcher = new JobWatcher(m_jobModel, this);
    m_notifier = new TrayNotifier(statusBar(), this);
    createMenus();

    connect(m_session, &Session::loggedIn, this, &MainWindow::handleLoggedIn);
    connect(m_session, &Session::loggedOut, this, &MainWindow::handleLoggedOut);
    connect(m_session, &Session::sessionExpired, this, [this](const QString &message) {
        m_jobListView->setRefreshInterval(0);
        m_stack->setCurrentWidget(m_connectPage);
        m_connectPage->showMessage(message);
    });
    connect(m_jobModel, &JobListModel::loadFailed, this, [this](const Error &error) {
        if (isUnauthorized(error))
            m_session->handleAuthError();
        else
            m_messages->showError(ErrorText::describe(error));
    });
    connect(m_workspace, &QTabWidget::tabCloseRequested, this, &MainWindow::closeJobTab);
    connect(m_watcher, &JobWatcher::jobEnded, this,
            [this](const QString &, const QString &name, const QString &state) {
                m_notifier->notify(tr("Job %1 ended").arg(name),
                                   JobStateStyle::displayName(state));
            });
}

MainWindow::~MainWindow() = default;

void MainWindow::createJobListView()
{
    m_jobListView = new JobListView(m_jobModel, m_workspace);
    m_jobListView->setObjectName(u"jobListView"_s);
    m_workspace->insertTab(0, m_jobListView, tr("Jobs"));
    // The fixed tabs cannot be closed; job tabs can.
    m_workspace->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
    connect(m_jobListView, &JobListView::openRequested, this, &MainWindow::openJob);
    connect(m_jobListView, &JobListView::cancelRequested, this, &MainWindow::cancelJobs);
    connect(m_jobListView, &JobListView::cloneRequested, this, &MainWindow::cloneJob);
    connect(m_jobListView, &JobListView::newJobRequested, this, &MainWindow::newJobRequested);
}

void MainWindow::updateWindowTitle()
{
    setWindowTitle(isLoggedIn()
                       ? tr("DDL — %1 on %2").arg(m_session->email(), m_session->serverKey())
                       : tr("DDL"));
}

bool MainWindow::isLoggedIn() const
{
    return m_session->state() == Session::State::LoggedIn;
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New job…"), QKeySequence::New, this, &MainWindow::newJobRequested);
    file->addSeparator();
    file->addAction(tr("Log &out"), this, [this] { m_session->logout(); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find…"), QKeySequence::Find, this, &MainWindow::focusSearch);
    view->addAction(tr("&Refresh"), QKeySequence::Refresh, this, &MainWindow::refreshCurrent);
    view->addAction(tr("&Close job tab"), QKeySequence::Close, this, [this] {
        closeJobTab(m_workspace->currentIndex());
    });

    QMenu *language = menuBar()->addMenu(tr("&Language"));
    auto *group = new QActionGroup(language);
    const QList<QPair<QString, QString>> languages{{QString(), tr("System language")},
                                                   {u"en"_s, u"English"_s},
                                                   {u"de"_s, u"Deutsch"_s},
                                                   {u"zh_CN"_s, u"简体中文"_s}};
    for (const auto &[code, name] : languages) {
        QAction *action = language->addAction(name);
        action->setCheckable(true);
        action->setChecked(m_settings.language() == code);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] { setLanguage(code); });
    }
}

void MainWindow::setLanguage(const QString &language)
{
    m_settings.setLanguage(language);
    m_settings.sync();
    // No translation for it (English, or a language DDL lacks): the English source texts.
    DesktopApp::installTranslation(*qApp, language);
    // QApplication posts LanguageChange to the windows: deliver it now, so the views that
    // retranslate themselves have done so before the rebuild (which the event also asks for).
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
    rebuildViews();
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    // A translator installed by anyone: the views follow once it has settled (installing one
    // language sends several of these events).
    if (event->type() == QEvent::LanguageChange && !m_rebuildPending) {
        m_rebuildPending = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (m_rebuildPending) // else setLanguage() rebuilt them already
                    rebuildViews();
            },
            Qt::QueuedConnection);
    }
}

void MainWindow::setWorkspaceBuilder(std::function<void(MainWindow &)> builder)
{
    m_builder = std::move(builder);
    if (m_builder)
        m_builder(*this);
}

QWidget *MainWindow::retiredView(const QString &objectName) const
{
    return m_retired.value(objectName);
}

// Rebuilding beats teaching every view to retranslate itself: the views set their texts once,
// in their constructors, and the state worth keeping is small and explicit (the typed text, the
// filters, the open jobs). Views that hold work in flight keep themselves and retranslate
// (DatasetsView with an upload, ImagesView with a push); job tabs reopen from the server.
void MainWindow::rebuildViews()
{
    m_rebuildPending = false;
    setUpdatesEnabled(false);

    setMenuBar(new QMenuBar(this)); // the old bar goes with its menus
    createMenus();
    updateWindowTitle();

    auto *connectPage = new ConnectPage(*m_session, m_settings, m_stack);
    connectPage->takeStateFrom(*m_connectPage);
    const bool connectShown = m_stack->currentWidget() == m_connectPage;
    m_stack->insertWidget(m_stack->indexOf(m_connectPage), connectPage);
    m_stack->removeWidget(m_connectPage);
    // Deleted now, not later: nothing of a page runs while the window rebuilds (the menu that
    // asked for it belongs to the old menu bar), and no one should find the old page meanwhile.
    delete m_connectPage;
    m_connectPage = connectPage;
    m_stack->setCurrentWidget(connectShown ? static_cast<QWidget *>(m_connectPage)
                                           : m_workspaceArea);

    // The workspace: every tab out, the fixed ones built again, the jobs opened again.
    QWidget *current = m_workspace->currentWidget();
    QString currentJob;
    QStringList openJobs;
    QHash<QString, int> jobTabs; // uuid -> the inner tab (logs, metrics, artifacts) shown
    for (int i = 0; i < m_workspace->count(); ++i) {
        QWidget *page = m_workspace->widget(i);
        if (auto *job = qobject_cast<JobDetailView *>(page)) {
            openJobs << job->uuid();
            jobTabs.insert(job->uuid(), job->tabs()->currentIndex());
            if (page == current)
                currentJob = job->uuid();
        } else if (!page->objectName().isEmpty()) {
            m_retired.insert(page->objectName(), page);
        }
    }
    const QString currentName = currentJob.isEmpty() && current ? current->objectName() : QString();
    QList<QWidget *> oldPages;
    while (m_workspace->count() > 0) {
        oldPages << m_workspace->widget(0);
        m_workspace->removeTab(0);
    }
    m_jobViews.clear();

    JobListView *oldList = m_jobListView;
    createJobListView();
    m_jobListView->takeStateFrom(*oldList);
    if (m_builder)
        m_builder(*this);
    for (const QString &uuid : std::as_const(openJobs)) {
        if (JobDetailView *view = openJob(uuid))
            view->tabs()->setCurrentIndex(jobTabs.value(uuid));
    }
    int currentIndex = 0;
    for (int i = 0; i < m_workspace->count(); ++i) {
        QWidget *page = m_workspace->widget(i);
        const auto *job = qobject_cast<JobDetailView *>(page);
        if (job ? job->uuid() == currentJob
                : !currentName.isEmpty() && page->objectName() == currentName)
            currentIndex = i;
    }
    m_workspace->setCurrentIndex(currentIndex);

    // The pages nobody took over go; a view kept as it is was added back and stays.
    for (QWidget *page : std::as_const(oldPages)) {
        if (m_workspace->indexOf(page) < 0)
            delete page;
    }
    m_retired.clear();
    setUpdatesEnabled(true);
}

void MainWindow::restoreSession()
{
    const QString server = m_settings.serverUrl();
    const QString email = m_settings.email();
    if (server.isEmpty() || email.isEmpty())
        return;
    const QString key = server;
    // Only a server trusted before is contacted without asking.
    if (m_settings.pinnedFingerprint(key).isEmpty() && m_settings.caFile(key).isEmpty())
        return;
    auto *context = new QObject(this);
    connect(m_session, &Session::connected, context, [this, context, email] {
        context->deleteLater();
        m_session->resume(email);
    });
    // A kept session the server no longer honours: say so where the password goes.
    connect(m_session, &Session::resumeFailed, this, [this] {
        m_connectPage->showMessage(tr("Your session has expired. Log in again."));
    }, Qt::SingleShotConnection);
    connect(m_session, &Session::failed, context, &QObject::deleteLater);
    m_session->connectToServer(server, m_settings.caFile(key));
}

void MainWindow::addWorkspaceTab(QWidget *widget, const QString &title)
{
    const int index = m_workspace->addTab(widget, title);
    m_workspace->tabBar()->setTabButton(index, QTabBar::RightSide, nullptr);
}

void MainWindow::handleLoggedIn(const QString &email)
{
    updateWindowTitle();
    m_jobModel->setClient(m_session->client());
    m_jobListView->setRefreshInterval(JobListRefreshMs);
    m_stack->setCurrentWidget(m_workspaceArea);
    statusBar()->showMessage(tr("Logged in as %1").arg(email), 5000);
}

void MainWindow::handleLoggedOut()
{
    m_jobListView->setRefreshInterval(0);
    m_jobModel->setClient(nullptr);
    for (const QPointer<JobDetailView> &view : std::as_const(m_jobViews)) {
        if (view)
            view->deleteLater();
    }
    m_jobViews.clear();
    m_stack->setCurrentWidget(m_connectPage);
    updateWindowTitle(); // no one's name on a window nobody is logged in to
}

void MainWindow::closeJobTab(int index)
{
    QWidget *page = m_workspace->widget(index);
    if (qobject_cast<JobDetailView *>(page)) {
        m_workspace->removeTab(index);
        page->deleteLater();
    }
}

void MainWindow::focusSearch()
{
    QWidget *page = m_workspace->currentWidget();
    if (page == m_jobListView)
        m_jobListView->focusSearch();
    else if (auto *job = qobject_cast<JobDetailView *>(page))
        job->logView()->focusSearch();
}

void MainWindow::refreshCurrent()
{
    if (auto *job = qobject_cast<JobDetailView *>(m_workspace->currentWidget()))
        job->refresh();
    else
        m_jobModel->refresh();
}

JobDetailView *MainWindow::jobView(const QString &uuid) const
{
    return m_jobViews.value(uuid);
}

JobDetailView *MainWindow::openJob(const QString &uuid)
{
    if (uuid.isEmpty())
        return nullptr;
    if (JobDetailView *existing = m_jobViews.value(uuid)) {
        m_workspace->setCurrentWidget(existing);
        existing->setFocus();
        return existing;
    }
    auto *view = new JobDetailView(m_session->client(), uuid, m_workspace);
    m_jobViews.insert(uuid, view);
    m_watcher->watch(uuid);
    const int index = m_workspace->addTab(view, uuid.left(8));
    m_workspace->setTabToolTip(index, uuid); // jobs of the same name differ by it
    m_workspace->setCurrentIndex(index);
    view->setFocus();
    connect(view, &JobDetailView::titleChanged, this, [this, view](const QString &title) {
        const int at = m_workspace->indexOf(view);
        if (at >= 0 && m_workspace->tabText(at) != title) {
            m_workspace->setTabText(at, title);
            m_navigation->scheduleSync();
        }
    });
    connect(view, &JobDetailView::cloneRequested, this, &MainWindow::cloneRequested);
    connect(view, &JobDetailView::failed, this, [this](const QString &message) {
        m_messages->showError(message);
    });
    connect(view, &JobDetailView::stateChanged, m_jobModel, &JobListModel::refresh);
    connect(view, &JobDetailView::authFailed, m_session, &Session::handleAuthError);
    return view;
}

SubmitWizard *MainWindow::openSubmitWizard(const JobSpec &spec)
{
    auto *wizard = new SubmitWizard(m_session->client(), spec, this);
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    connect(wizard, &SubmitWizard::jobSubmitted, this, [this](const QString &uuid) {
        m_watcher->watchSubmitted(uuid);
        m_jobModel->refresh();
        openJob(uuid);
    });
    wizard->show();
    return wizard;
}

void MainWindow::cancelJobs(const QStringList &uuids, const QStringList &names)
{
    StopConfirmation::ask(this, names, [this, uuids] {
        // The list is asked again once, when the last answer is in, not once per job.
        auto pending = std::make_shared<qsizetype>(uuids.size());
        for (const QString &uuid : uuids) {
            whenFinished(m_session->client()->cancelJob(uuid), this,
                         [this, pending](const Result<ApiResponse> &result) {
                             if (!result)
                                 m_messages->showError(ErrorText::describe(result.error()));
                             if (--*pending == 0)
                                 m_jobModel->refresh();
                         });
        }
    });
}

void MainWindow::cloneJob(const QString &uuid)
{
    whenFinished(m_session->client()->job(uuid), this, [this](const Result<ApiResponse> &result) {
        const Result<JobMessage> job =
            result ? JobMessage::fromJson(result->json()) : Result<JobMessage>(result.error());
        if (!job) {
            m_messages->showError(ErrorText::describe(job.error()));
            return;
        }
        emit cloneRequested(job->spec);
    });
}

} // namespace ddl::desktop
