// The workspace as a person uses it every day, against a real ddl-server and ddl-worker: stopping
// a job asks first (and a stray key never stops one), several jobs stop with one question, the
// task picked in the table is the task named in the logs and metrics, opening a long-finished
// job is no news, the keyboard reaches everything, and the navigation keeps the fixed pages in
// view however many jobs are open.

#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "editor/jobeditor.h"
#include "models/joblistmodel.h"
#include "models/taskmodel.h"
#include "views/failuresummary.h"
#include "views/jobdetailview.h"
#include "views/joblistview.h"
#include "views/logview.h"
#include "views/messagebar.h"
#include "views/mainwindow.h"
#include "views/metricchartsview.h"
#include "views/navigationlist.h"
#include "views/traynotifier.h"
#include "wizard/submitwizard.h"

#include <QComboBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace ddl::desktop;
using namespace Qt::Literals::StringLiterals;

class TestDesktopWorkspace : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void emptyListSaysWhatToDo();
    void stoppingAsksFirst();
    void severalJobsStopWithOneQuestion();
    void taskRowNamesTheTaskEverywhere();
    void reopeningAFinishedJobIsNoNews();
    void keyboardReachesTheJobs();
    void navigationKeepsFixedPagesInView();
    void failedJobSaysWhatHappened();
    void newJobStartsClean();
    void errorsAreShownWhole();
    void logoutClearsTheTitle();

private:
    // Waits until the job list holds uuid in state.
    bool listShows(const QString &uuid, const QString &state);
    QMessageBox *confirmation(QWidget *parent) const;
    // Keys go to the active window: after a question closed, the main window is active again.
    bool activate();

    ClusterHarness m_cluster;
    QTemporaryDir m_config;
    std::unique_ptr<DesktopSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_stopped; // a job this run stopped
};

bool TestDesktopWorkspace::listShows(const QString &uuid, const QString &state)
{
    return QTest::qWaitFor(
        [&] {
            const JobRecord *record = m_window->jobModel()->record(
                m_window->jobModel()->rowOf(uuid));
            if (record && record->state == state)
                return true;
            m_window->jobModel()->refresh();
            return false;
        },
        20000);
}

QMessageBox *TestDesktopWorkspace::confirmation(QWidget *parent) const
{
    // Answered ones close and go later: the one asking now is the visible one.
    for (auto *box : parent->findChildren<QMessageBox *>(u"stopConfirmation"_s)) {
        if (box->isVisible())
            return box;
    }
    return nullptr;
}

bool TestDesktopWorkspace::activate()
{
    m_window->activateWindow();
    return QTest::qWaitForWindowActive(m_window.get());
}

void TestDesktopWorkspace::initTestCase()
{
    QVERIFY(m_config.isValid());
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startWorker());
    m_settings = std::make_unique<DesktopSettings>(m_config.filePath(u"ddl-desktop.ini"_s));
    m_settings->setUseKeychain(false);
    m_window = std::make_unique<MainWindow>(*m_settings);
    WorkspaceBuilder::build(*m_window);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    const QString trusted = connectAndTrust(*m_window, m_cluster.serverUrl());
    QVERIFY2(trusted.isEmpty(), qPrintable(trusted));
    const QString registered =
        registerThroughUi(*m_window, u"grace@example.com"_s, u"compiler pioneer"_s);
    QVERIFY2(registered.isEmpty(), qPrintable(registered));
}

void TestDesktopWorkspace::emptyListSaysWhatToDo()
{
    auto *hint = m_window->jobListView()->findChild<QLabel *>(u"emptyHint"_s);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->jobModel()->total() == 0, 10000);
    QVERIFY(hint->isVisible());
    QVERIFY2(hint->text().contains(u"New job"_s) && hint->text().contains(u"ddlcli submit"_s),
             qPrintable(hint->text()));
}

void TestDesktopWorkspace::stoppingAsksFirst()
{
    const QString uuid = submitCommandJob(*m_window, u"keep-me"_s, u"echo started; sleep 120"_s);
    QVERIFY(!uuid.isEmpty());
    JobDetailView *view = m_window->openJob(uuid);
    QTRY_COMPARE_WITH_TIMEOUT(view->state(), u"RUNNING"_s, 20000);
    auto *cancel = view->findChild<QPushButton *>(u"cancelButton"_s);
    QVERIFY(cancel->isEnabled());

    // Opening the job put the keyboard on its tasks; a Space press there stops nothing.
    QTRY_VERIFY(QApplication::focusWidget() != nullptr);
    QVERIFY(!cancel->hasFocus());
    QVERIFY(view->isAncestorOf(QApplication::focusWidget()));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QVERIFY(!confirmation(view));

    // The button asks, naming the job; the default answer (Enter) keeps it running.
    QTest::mouseClick(cancel, Qt::LeftButton);
    QMessageBox *box = confirmation(view);
    QVERIFY(box);
    QVERIFY2(box->text().contains(u"keep-me"_s), qPrintable(box->text()));
    QCOMPARE(box->defaultButton()->objectName(), u"keepButton"_s);
    QTest::keyClick(box, Qt::Key_Return);
    QTRY_VERIFY(!confirmation(view));
    QSignalSpy loaded(view, &JobDetailView::jobLoaded);
    view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 10000);
    QCOMPARE(view->state(), u"RUNNING"_s);

    // Escape keeps it too; "Stop job" stops it.
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTest::keyClick(confirmation(view), Qt::Key_Escape);
    QTRY_VERIFY(!confirmation(view));
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTest::mouseClick(confirmation(view)->findChild<QPushButton *>(u"stopButton"_s),
                      Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(view->state(), u"STOPPED"_s, 15000);
    m_stopped = uuid;
}

void TestDesktopWorkspace::severalJobsStopWithOneQuestion()
{
    const QString first = submitCommandJob(*m_window, u"batch-a"_s, u"sleep 120"_s);
    const QString second = submitCommandJob(*m_window, u"batch-b"_s, u"sleep 120"_s);
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    QVERIFY(listShows(first, u"RUNNING"_s) || listShows(first, u"WAITING"_s));
    QVERIFY(m_window->jobModel()->rowOf(second) >= 0);

    m_window->workspace()->setCurrentWidget(m_window->jobListView());
    QTableView *table = m_window->jobListView()->table();
    table->clearSelection();
    for (const QString &uuid : {first, second, m_stopped}) {
        const int row = m_window->jobModel()->rowOf(uuid);
        QVERIFY(row >= 0);
        const QModelIndex index = m_window->jobModel()->index(row, 0);
        table->selectionModel()->select(index, QItemSelectionModel::Select
                                                   | QItemSelectionModel::Rows);
    }
    QVERIFY(activate());
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Delete);
    QMessageBox *box = confirmation(m_window.get());
    QVERIFY(box);
    // The two that can stop, by name; the one already stopped is not asked about.
    QVERIFY2(box->text().contains(u"batch-a"_s) && box->text().contains(u"batch-b"_s),
             qPrintable(box->text()));
    QVERIFY(!box->text().contains(u"keep-me"_s));
    QTest::mouseClick(box->findChild<QPushButton *>(u"stopButton"_s), Qt::LeftButton);
    QVERIFY(listShows(first, u"STOPPED"_s));
    QVERIFY(listShows(second, u"STOPPED"_s));
    QVERIFY(!confirmation(m_window.get())); // one question for both
}

void TestDesktopWorkspace::taskRowNamesTheTaskEverywhere()
{
    const QString uuid = submitCommandJob(
        *m_window, u"two-tasks"_s,
        u"echo task $PAI_TASK_INDEX; echo 'DDL_METRIC {\"step\": 1, \"loss\": 0.5}'"_s, 2);
    QVERIFY(!uuid.isEmpty());
    JobDetailView *view = m_window->openJob(uuid);
    QTRY_COMPARE_WITH_TIMEOUT(view->tasks()->rowCount(), 2, 20000);
    auto *table = view->findChild<QTableView *>(u"taskTable"_s);
    auto *picker = view->logView()->findChild<QComboBox *>();
    for (int row : {1, 0}) {
        const QModelIndex index = view->tasks()->index(row, 0);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(index).center());
        const QString label = view->tasks()->label(row);
        QCOMPARE(picker->currentText(), label);
        QCOMPARE(view->logView()->shownTask(), view->tasks()->taskId(row));
        QVERIFY2(view->charts()->taskLabel().contains(label),
                 qPrintable(view->charts()->taskLabel()));
    }
}

void TestDesktopWorkspace::reopeningAFinishedJobIsNoNews()
{
    QVERIFY(!m_stopped.isEmpty());
    QVERIFY(listShows(m_stopped, u"STOPPED"_s));
    const int shown = m_window->notifier()->shownCount();
    // Closed with Ctrl+W and opened again: it ended long ago, so nothing is announced.
    QVERIFY(activate());
    m_window->openJob(m_stopped);
    QTest::keySequence(m_window.get(), QKeySequence::Close);
    QTRY_VERIFY(!m_window->jobView(m_stopped));
    JobDetailView *view = m_window->openJob(m_stopped);
    QTRY_COMPARE_WITH_TIMEOUT(view->state(), u"STOPPED"_s, 10000);
    QSignalSpy refreshed(m_window->jobModel(), &JobListModel::refreshed);
    m_window->jobModel()->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), 10000);
    QCOMPARE(m_window->notifier()->shownCount(), shown);
}

void TestDesktopWorkspace::keyboardReachesTheJobs()
{
    MainWindow &window = *m_window;
    QVERIFY(activate());
    window.workspace()->setCurrentWidget(window.jobListView());
    // Ctrl+F goes to the filter box.
    QTest::keySequence(&window, QKeySequence::Find);
    QTRY_COMPARE(QApplication::focusWidget()->objectName(), u"searchEdit"_s);
    // Enter on a row opens its job.
    QTableView *table = window.jobListView()->table();
    const int row = window.jobModel()->rowOf(m_stopped);
    table->setCurrentIndex(window.jobModel()->index(row, 0));
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(window.workspace()->currentWidget(), window.jobView(m_stopped));
    // In a job, Ctrl+F goes to the log search; F5 asks the server again.
    QTest::keySequence(&window, QKeySequence::Find);
    QTRY_VERIFY(window.jobView(m_stopped)->logView()->isAncestorOf(QApplication::focusWidget()));
    QVERIFY(qobject_cast<QLineEdit *>(QApplication::focusWidget()));
    QSignalSpy loaded(window.jobView(m_stopped), &JobDetailView::jobLoaded);
    QTest::keySequence(&window, QKeySequence::Refresh);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 10000);
    // Ctrl+W closes the job, never a fixed page.
    QTest::keySequence(&window, QKeySequence::Close);
    QTRY_VERIFY(!window.jobView(m_stopped));
    window.workspace()->setCurrentWidget(window.jobListView());
    const int pages = window.workspace()->count();
    QTest::keySequence(&window, QKeySequence::Close);
    QCOMPARE(window.workspace()->count(), pages);
}

void TestDesktopWorkspace::navigationKeepsFixedPagesInView()
{
    MainWindow &window = *m_window;
    // Ten jobs open beside the fixed pages (a tab bar scrolled "Jobs" out of view at seven).
    QStringList opened;
    for (int i = 0; i < window.jobModel()->rowCount() && opened.size() < 4; ++i)
        opened << window.jobModel()->record(i)->uuid;
    for (int i = 0; opened.size() < 10; ++i) {
        const QString uuid = submitCommandJob(window, u"many-%1"_s.arg(i), u"true"_s);
        QVERIFY(!uuid.isEmpty());
        opened << uuid;
    }
    for (const QString &uuid : std::as_const(opened))
        window.openJob(uuid);
    NavigationList *navigation = window.navigation();
    QTRY_COMPARE(navigation->count(), window.workspace()->count() + 1); // + "Open jobs"
    // The fixed pages are the first rows, all in view; a click shows one.
    for (int row = 0; row < 5; ++row) {
        QListWidgetItem *item = navigation->item(row);
        QVERIFY(navigation->viewport()->rect().contains(navigation->visualItemRect(item)));
    }
    QCOMPARE(navigation->item(0)->text(), u"Home"_s);
    QCOMPARE(navigation->item(1)->text(), u"Jobs"_s);
    QTest::mouseClick(navigation->viewport(), Qt::LeftButton, {},
                      navigation->visualItemRect(navigation->item(1)).center());
    QCOMPARE(window.workspace()->currentWidget(), window.jobListView());
    // The current page is the current row, as it changes from elsewhere.
    window.openJob(opened.last());
    QCOMPARE(navigation->currentItem()->data(NavigationList::PageRole).value<QWidget *>(),
             window.jobView(opened.last()));
    // A job closes from the navigation, as a tab would (middle click).
    navigation->scrollToBottom();
    QTest::mouseClick(navigation->viewport(), Qt::MiddleButton, {},
                      navigation->visualItemRect(navigation->item(navigation->count() - 1))
                          .center());
    QTRY_VERIFY(!window.jobView(opened.last()));
    QTRY_COMPARE(navigation->count(), window.workspace()->count() + 1);
}

void TestDesktopWorkspace::failedJobSaysWhatHappened()
{
    const QString uuid = submitCommandJob(
        *m_window, u"fails-loudly"_s,
        u"echo fine; for i in $(seq 1 30); do echo noise $i >&2; done; "
        "echo 'ValueError: bad learning rate' >&2; exit 3"_s);
    QVERIFY(!uuid.isEmpty());
    JobDetailView *view = m_window->openJob(uuid);
    QTRY_COMPARE_WITH_TIMEOUT(view->state(), u"FAILED"_s, 20000);
    FailureSummary *failure = view->failure();
    QVERIFY(failure->isVisible());
    QVERIFY2(failure->headline().contains(u"exit code 3"_s)
                 && failure->headline().contains(u"main #0"_s)
                 && failure->headline().contains(u"attempt 1 of 1"_s),
             qPrintable(failure->headline()));
    // The last error lines, whole, from the end of stderr (not stdout).
    QTRY_VERIFY_WITH_TIMEOUT(failure->errorLines().endsWith(u"ValueError: bad learning rate"_s),
                             10000);
    QVERIFY(!failure->errorLines().contains(u"fine"_s));
    QCOMPARE(failure->errorLines().count(u'\n') + 1, FailureSummary::TailLines);
    // The job as submitted is there to read.
    auto *config = view->findChild<QPlainTextEdit *>(u"jobConfig"_s);
    QVERIFY(config->toPlainText().contains(u"fails-loudly"_s));

    // A command that is not there: the advice says so.
    const QString missing = submitCommandJob(*m_window, u"no-such-tool"_s, u"no-such-tool"_s);
    JobDetailView *second = m_window->openJob(missing);
    QTRY_COMPARE_WITH_TIMEOUT(second->state(), u"FAILED"_s, 20000);
    QVERIFY2(second->failure()->advice().contains(u"not found"_s),
             qPrintable(second->failure()->headline() + second->failure()->advice()));
    // A job that did not fail says nothing of the kind.
    QVERIFY(!m_window->openJob(m_stopped)->failure()->isVisible());
}

void TestDesktopWorkspace::newJobStartsClean()
{
    // An OpenPAI job tried in the editor a minute ago...
    auto *editor = m_window->findChild<JobEditor *>(u"jobEditor"_s);
    editor->setText(uR"({"jobName": "old-openpai", "image": "python3", "taskRoles": [
        {"name": "main", "taskNumber": 1, "cpuNumber": 4, "memoryMB": 8192, "gpuNumber": 1,
         "command": "python3 x.py"}]})"_s);
    QVERIFY2(editor->spec().has_value(),
             qPrintable(editor->problems().value(0).field + u": "_s
                        + editor->problems().value(0).message));
    QCOMPARE(editor->spec()->kind, ddl::JobSpec::Kind::OpenPai);
    // ...is not what "New job..." starts from.
    emit m_window->newJobRequested();
    auto *wizard = m_window->findChild<SubmitWizard *>();
    QVERIFY(wizard);
    QCOMPARE(wizard->spec().kind, ddl::JobSpec::Kind::Ddl);
    QVERIFY(wizard->spec().jobName != u"old-openpai"_s);
    QCOMPARE(wizard->spec().taskRoles.value(0).gpuNumber, 0);
    QVERIFY(wizard->spec().taskRoles.value(0).command.isEmpty());
    QVERIFY(editor->text().contains(u"old-openpai"_s)); // the editor keeps its text
    wizard->close();
}

void TestDesktopWorkspace::errorsAreShownWhole()
{
    // A job that is not there (or not this user's): the server's answer, whole, over the pages.
    const QString nobody = u"00000000-0000-4000-8000-000000000000"_s;
    JobDetailView *view = m_window->openJob(nobody);
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->messages()->text().isEmpty(), 10000);
    QVERIFY2(m_window->messages()->text().contains(u"no job "_s + nobody),
             qPrintable(m_window->messages()->text()));
    auto *label = m_window->messages()->findChild<QLabel *>(u"messageText"_s);
    QVERIFY(label->wordWrap()); // a long message wraps, it is not cut
    QTest::mouseClick(m_window->messages()->findChild<QToolButton *>(u"messageClose"_s),
                      Qt::LeftButton);
    QVERIFY(m_window->messages()->text().isEmpty());
    m_window->workspace()->removeTab(m_window->workspace()->indexOf(view));
    view->deleteLater();
}

void TestDesktopWorkspace::logoutClearsTheTitle()
{
    QVERIFY(m_window->windowTitle().contains(u"grace@example.com"_s));
    m_window->session()->logout();
    QTRY_VERIFY(!m_window->isLoggedIn());
    QVERIFY2(!m_window->windowTitle().contains(u"grace"_s), qPrintable(m_window->windowTitle()));
}

QTEST_MAIN(TestDesktopWorkspace)
#include "tst_desktop_workspace.moc"
