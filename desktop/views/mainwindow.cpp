#include "mainwindow.h"

#include "api/apiclient.h"
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
#include "views/traynotifier.h"
#include "wizard/submitwizard.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

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
    m_workspace = new QTabWidget(m_stack);
    m_workspace->setObjectName(u"workspace"_s);
    m_workspace->setDocumentMode(true);
    m_workspace->setTabsClosable(true);
    m_jobModel = new JobListModel(this);
    m_jobListView = new JobListView(m_jobModel, m_workspace);
    m_workspace->addTab(m_jobListView, tr("Jobs"));
    // The fixed tabs cannot be closed; job tabs can.
    m_workspace->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
    m_stack->addWidget(m_connectPage);
    m_stack->addWidget(m_workspace);
    setCentralWidget(m_stack);
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
        if (ErrorText::isAuthError(error))
            m_session->handleAuthError();
        else
            statusBar()->showMessage(ErrorText::describe(error), 10000);
    });
    connect(m_jobListView, &JobListView::openRequested, this, &MainWindow::openJob);
    connect(m_jobListView, &JobListView::cancelRequested, this, &MainWindow::cancelJob);
    connect(m_jobListView, &JobListView::cloneRequested, this, &MainWindow::cloneJob);
    connect(m_jobListView, &JobListView::newJobRequested, this, &MainWindow::newJobRequested);
    connect(m_workspace, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget *page = m_workspace->widget(index);
        if (qobject_cast<JobDetailView *>(page)) {
            m_workspace->removeTab(index);
            page->deleteLater();
        }
    });
    connect(m_watcher, &JobWatcher::jobEnded, this,
            [this](const QString &, const QString &name, const QString &state) {
                m_notifier->notify(tr("Job %1 ended").arg(name),
                                   JobStateStyle::displayName(state));
            });
}

MainWindow::~MainWindow() = default;

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
        connect(action, &QAction::triggered, this, [this, code] {
            m_settings.setLanguage(code);
            m_settings.sync();
            QMessageBox::information(this, tr("Language"),
                                     tr("The language changes when DDL starts next time."));
        });
    }
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
    setWindowTitle(tr("DDL — %1 on %2").arg(email, m_session->serverKey()));
    m_jobModel->setClient(m_session->client());
    m_jobListView->setRefreshInterval(JobListRefreshMs);
    m_stack->setCurrentWidget(m_workspace);
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
        return existing;
    }
    auto *view = new JobDetailView(m_session->client(), uuid, m_workspace);
    m_jobViews.insert(uuid, view);
    m_watcher->watch(uuid);
    const int index = m_workspace->addTab(view, uuid.left(8));
    m_workspace->setCurrentIndex(index);
    connect(view, &JobDetailView::titleChanged, this, [this, view](const QString &title) {
        const int at = m_workspace->indexOf(view);
        if (at >= 0)
            m_workspace->setTabText(at, title);
    });
    connect(view, &JobDetailView::cloneRequested, this, &MainWindow::cloneRequested);
    connect(view, &JobDetailView::failed, this, [this](const QString &message) {
        statusBar()->showMessage(message, 10000);
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
        m_watcher->watch(uuid);
        m_jobModel->refresh();
        openJob(uuid);
    });
    wizard->show();
    return wizard;
}

void MainWindow::cancelJob(const QString &uuid)
{
    whenFinished(m_session->client()->postJson(u"/v1/jobs/"_s + uuid + u"/cancel"_s, {}), this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result)
                         statusBar()->showMessage(ErrorText::describe(result.error()), 10000);
                     m_jobModel->refresh();
                 });
}

void MainWindow::cloneJob(const QString &uuid)
{
    whenFinished(m_session->client()->get(u"/v1/jobs/"_s + uuid), this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result) {
                         statusBar()->showMessage(ErrorText::describe(result.error()), 10000);
                         return;
                     }
                     emit cloneRequested(result->json().value("spec"_L1).toObject());
                 });
}

} // namespace ddl::desktop
