// The whole desktop flow against a real ddl-server and ddl-worker on loopback: connect and pin
// the fingerprint, a wrong login, register, submit the iris example, see it succeed in the job
// list, its live logs and metric charts, the tray notification, and a restart that resumes the
// session from the 0600 token file.
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "core/sha256.h"
#include "editor/jobeditor.h"
#include "jobs/jobsubmission.h"
#include "jobs/logsearcher.h"
#include "jobs/logwindowloader.h"
#include "jobspec/jobspecparser.h"
#include "models/artifactmodel.h"
#include "models/joblistmodel.h"
#include "models/metricstore.h"
#include "models/taskmodel.h"
#include "models/workermodel.h"
#include "views/artifactbrowser.h"
#include "views/datasetsview.h"
#include "views/homeview.h"
#include "views/jobdetailview.h"
#include "views/joblistview.h"
#include "views/logview.h"
#include "views/mainwindow.h"
#include "views/metricchartsview.h"
#include "views/statetimeline.h"
#include "views/traynotifier.h"
#include "views/workersview.h"
#include "wizard/datasetpage.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTableView>
#include <QTreeWidget>
#include <QTest>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

class TestDesktopJobFlow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void wrongPasswordAndRegister();
    void submitAndWatch();
    void languageSwitchKeepsOpenJob();
    void workersScreen();
    void submitOnServerDataset();
    void cancelAndClone();
    void retryShowsItsCheckpoint();
    void largeLogLoadsByWindows();
    void logStreamsAndSearch();
    void searchInLongAndCrlfLines();
    void searchFindsWhatARunningTaskWritesLater();
    void streamFilterFollowsARunningTask();
    void restartResumesSession();

private:
    JobDetailView *submitCommandJob(const QString &name, const QString &command);

    ClusterHarness m_cluster;
    QTemporaryDir m_config;
    std::unique_ptr<DesktopSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_uuid;
    QString m_repo;
};

// An OpenPAI job of one python3 task running command, submitted and opened in a job tab.
JobDetailView *TestDesktopJobFlow::submitCommandJob(const QString &name, const QString &command)
{
    const QString uuid = ::submitCommandJob(*m_window, name, command);
    return uuid.isEmpty() ? nullptr : m_window->openJob(uuid);
}

void TestDesktopJobFlow::initTestCase()
{
    QVERIFY(m_config.isValid());
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startWorker());
    m_settings = std::make_unique<DesktopSettings>(m_config.filePath(u"ddl-desktop.ini"_s));
    m_settings->setUseKeychain(false); // no keychain service on CI: the 0600 file, for sure
    m_window = std::make_unique<MainWindow>(*m_settings);
    WorkspaceBuilder::build(*m_window);
    m_window->show();
}

void TestDesktopJobFlow::wrongPasswordAndRegister()
{
    MainWindow &window = *m_window;
    const QString problem = connectAndTrust(window, m_cluster.serverUrl());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // The fingerprint shown is the server's own certificate's, and it is now pinned.
    const QString expected = fingerprintOf(m_cluster.caCert());
    QVERIFY(!expected.isEmpty());
    QVERIFY(window.findChild<QLabel *>(u"fingerprintLabel"_s)->text().contains(expected));
    QCOMPARE(m_settings->pinnedFingerprint(window.session()->serverKey()).size(), 64);

    // No such account yet: the person reads that the email or password is wrong.
    window.findChild<QLineEdit *>(u"emailEdit"_s)->setText(u"ada@example.com"_s);
    window.findChild<QLineEdit *>(u"passwordEdit"_s)->setText(u"not the password"_s);
    QTest::mouseClick(window.findChild<QPushButton *>(u"loginButton"_s), Qt::LeftButton);
    auto *status = window.findChild<QLabel *>(u"statusLabel"_s);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(),
                              QCoreApplication::translate("ErrorText", "Wrong email or password."),
                              10000);
    QVERIFY(!window.isLoggedIn());

    const QString registered =
        registerThroughUi(window, u"ada@example.com"_s, u"analytical engine"_s);
    QVERIFY2(registered.isEmpty(), qPrintable(registered));
    QCOMPARE(window.workspace()->isVisible(), true);
}

void TestDesktopJobFlow::submitAndWatch()
{
    MainWindow &window = *m_window;
    QVERIFY(window.isLoggedIn());
    QAbstractItemModelTester tester(window.jobModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);

    const QString repo = m_cluster.makeExampleRepo(u"iris"_s);
    QVERIFY(!repo.isEmpty());
    m_repo = repo;
    QFile taskYaml(repo + u"/task.yaml"_s);
    QVERIFY(taskYaml.open(QIODevice::ReadOnly));
    ddl::Result<ddl::JobSpec> spec =
        ddl::JobSpecParser::parseTaskYaml(taskYaml.readAll(), u"iris"_s);
    QVERIFY2(spec.ok(), spec.ok() ? "" : qPrintable(spec.error().message));

    // Through the wizard, page by page, as a person would.
    SubmitWizard *wizard = window.openSubmitWizard(*spec);
    QSignalSpy submitted(wizard, &SubmitWizard::jobSubmitted);
    wizard->findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard->next();
    QCOMPARE(wizard->currentId(), int(SubmitWizard::GitPage));
    QTRY_VERIFY_WITH_TIMEOUT(wizard->currentPage()->isComplete(), 20000);
    wizard->next();
    QCOMPARE(wizard->findChild<FolderField *>(u"datasetFolder"_s)->path(), repo + u"/data"_s);
    // The server is asked which of the dataset's files it lacks: all of it, the first time.
    auto *datasetPage = qobject_cast<DatasetPage *>(wizard->currentPage());
    QTRY_VERIFY_WITH_TIMEOUT(datasetPage->plan().startsWith(u"To upload"_s), 15000);
    QVERIFY2(datasetPage->plan().contains(u"(1 of 1 file"_s), qPrintable(datasetPage->plan()));
    wizard->next();
    QCOMPARE(wizard->findChild<QLineEdit *>(u"wizardJobName"_s)->text(), u"iris-numpy"_s);
    wizard->next();
    QCOMPARE(wizard->currentId(), int(SubmitWizard::ReviewPage));
    wizard->next();
    QCOMPARE(wizard->currentId(), int(SubmitWizard::SubmitPage));
    QTRY_VERIFY_WITH_TIMEOUT(!wizard->submittedUuid().isEmpty(), 30000);
    m_uuid = wizard->submittedUuid();
    QCOMPARE(submitted.size(), 1);
    QVERIFY(wizard->currentPage()->isComplete());
    wizard->accept();

    // The background refresh brings the new job into the list without a reset.
    QSignalSpy resets(window.jobModel(), &QAbstractItemModel::modelReset);
    QTRY_VERIFY_WITH_TIMEOUT(window.jobModel()->rowOf(m_uuid) >= 0, 10000);
    QCOMPARE(resets.size(), 0);

    // The wizard opened the new job's tab.
    JobDetailView *detail = window.jobView(m_uuid);
    QVERIFY(detail);
    QCOMPARE(window.workspace()->currentWidget(), detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 90000);
    QCOMPARE(detail->tasks()->rowCount(), 1);
    // The drawn timeline, from the server's times: waited, ran once, succeeded.
    {
        const QList<StateTimeline::Segment> segments = detail->timeline()->segments();
        QStringList states;
        for (const StateTimeline::Segment &segment : segments)
            states << segment.state;
        QCOMPARE(states, (QStringList{u"WAITING"_s, u"RUNNING"_s, u"SUCCEEDED"_s}));
        QCOMPARE(segments.at(1).attempt, 1);
        QCOMPARE(segments.at(1).outcome, u"SUCCEEDED"_s);
        QVERIFY(segments.at(0).end <= segments.at(1).start);
        QVERIFY(segments.at(1).start <= segments.at(1).end);
    }

    // Logs: the followed window shows what main.py printed.
    QTRY_VERIFY_WITH_TIMEOUT(
        detail->logView()->text()->toPlainText().contains(u"final test accuracy"_s), 10000);
    // The dataset went up as a manifest and the worker laid it out for main().
    QVERIFY(!detail->logView()->text()->toPlainText().contains(u"no iris.csv"_s));
    QVERIFY(detail->logView()->text()->toPlainText().contains(u"manifest"_s));
    // Metrics: every DDL_METRIC line of the run (step 1, then every 10th of 400) is charted.
    QTRY_VERIFY_WITH_TIMEOUT(detail->metrics()->names().contains(u"loss"_s), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(detail->charts()->pointCount(u"loss"_s), 41, 10000);
    QVERIFY(detail->charts()->pointCount(u"train_accuracy"_s) == 41);

    // Artifacts: the output tree, a JSON preview, and a verified download of everything.
    ArtifactBrowser *artifacts = detail->artifacts();
    QTRY_COMPARE_WITH_TIMEOUT(artifacts->model()->fileCount(), 2, 10000);
    const QJsonArray files = artifacts->model()->filesUnder({});
    QStringList paths;
    for (const QJsonValue &file : files)
        paths << file.toObject().value("path"_L1).toString();
    paths.sort();
    QCOMPARE(paths, (QStringList{u"metrics.json"_s, u"model.npz"_s}));
    artifacts->preview(u"metrics.json"_s);
    QTRY_COMPARE_WITH_TIMEOUT(artifacts->previewKind(), ArtifactBrowser::PreviewKind::Text, 10000);
    QVERIFY(artifacts->previewText().contains(u"\"test_accuracy\""_s));
    QTemporaryDir downloads;
    QSignalSpy downloaded(artifacts, &ArtifactBrowser::downloadFinished);
    artifacts->downloadTo(files, downloads.path());
    QTRY_COMPARE_WITH_TIMEOUT(downloaded.size(), 1, 20000);
    QVERIFY2(downloaded.first().first().toBool(), qPrintable(downloaded.first().at(1).toString()));
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString local = downloads.filePath(file.value("path"_L1).toString());
        ddl::Result<QString> digest = ddl::sha256OfFile(local);
        QVERIFY2(digest.ok(), qPrintable(local));
        QCOMPARE(*digest, file.value("sha256"_L1).toString());
    }

    // The list shows the end too, and the watched job's end was announced.
    QTRY_VERIFY_WITH_TIMEOUT(window.jobModel()->record(window.jobModel()->rowOf(m_uuid))->state ==
                                 u"SUCCEEDED"_s,
                             10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.notifier()->shownCount() >= 1, 10000);
    QVERIFY(window.notifier()->lastMessage().contains(u"iris-numpy"_s));
}

// A language switch while logged in with a job open: the views are rebuilt in German, the
// session stays, the job's tab is reopened in front (same inner tab) and reloads from the server.
void TestDesktopJobFlow::languageSwitchKeepsOpenJob()
{
    MainWindow &window = *m_window;
    JobDetailView *before = window.jobView(m_uuid);
    QVERIFY(before);
    window.workspace()->setCurrentWidget(before);
    before->tabs()->setCurrentIndex(1); // metrics
    window.setLanguage(u"de"_s);
    QVERIFY(window.isLoggedIn());
    JobDetailView *after = window.jobView(m_uuid);
    QVERIFY(after && after != before);
    QCOMPARE(window.workspace()->currentWidget(), after);
    QCOMPARE(after->tabs()->currentIndex(), 1);
    QCOMPARE(after->tabs()->tabText(1), u"Metriken"_s);
    QCOMPARE(window.workspace()->tabText(window.workspace()->indexOf(window.jobListView())),
             u"Jobs"_s);
    QTRY_COMPARE_WITH_TIMEOUT(after->state(), u"SUCCEEDED"_s, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(
        window.workspace()->tabText(window.workspace()->indexOf(after)), u"iris-numpy"_s, 10000);
    QCOMPARE(after->timeline()->segments().size(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(window.jobModel()->rowOf(m_uuid) >= 0, 10000);

    window.setLanguage(QString()); // the system's (English here), as the other tests expect
    QCOMPARE(window.workspace()->tabText(window.workspace()->indexOf(window.jobListView())),
             u"Jobs"_s);
    QCOMPARE(window.jobView(m_uuid)->tabs()->tabText(1), u"Metrics"_s);
    QCOMPARE(window.findChildren<JobDetailView *>().size(), 1);
}

void TestDesktopJobFlow::workersScreen()
{
    MainWindow &window = *m_window;
    auto *workers = window.findChild<WorkersView *>(u"workersView"_s);
    QVERIFY(workers);
    QAbstractItemModelTester tester(workers->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    window.workspace()->setCurrentWidget(workers);
    QTRY_COMPARE_WITH_TIMEOUT(workers->model()->rowCount(), 1, 10000);
    const QModelIndex state = workers->model()->index(0, WorkerModel::StateColumn);
    QCOMPARE(state.data(WorkerModel::StateRole).toString(), u"ONLINE"_s);
    QVERIFY(workers->model()->index(0, WorkerModel::CpusColumn).data().toInt() >= 1);
}

void TestDesktopJobFlow::submitOnServerDataset()
{
    MainWindow &window = *m_window;
    // The data goes up once as a dataset (the datasets screen), then a job names it.
    auto *datasets = window.findChild<DatasetsView *>(u"datasetsView"_s);
    QSignalSpy uploaded(datasets, &DatasetsView::uploadFinished);
    datasets->uploadFolder(m_repo + u"/data"_s);
    QTRY_COMPARE_WITH_TIMEOUT(uploaded.size(), 1, 20000);
    QVERIFY2(uploaded.first().first().toBool(), qPrintable(uploaded.first().at(1).toString()));

    QFile taskYaml(m_repo + u"/task.yaml"_s);
    QVERIFY(taskYaml.open(QIODevice::ReadOnly));
    ddl::Result<ddl::JobSpec> spec =
        ddl::JobSpecParser::parseTaskYaml(taskYaml.readAll(), u"iris"_s);
    QVERIFY(spec.ok());
    SubmitWizard *wizard = window.openSubmitWizard(*spec);
    wizard->findChild<FolderField *>(u"projectFolder"_s)->setPath(m_repo);
    wizard->next();
    QTRY_VERIFY_WITH_TIMEOUT(wizard->currentPage()->isComplete(), 20000);
    wizard->next();
    auto *page = qobject_cast<DatasetPage *>(wizard->currentPage());
    QVERIFY(page);
    QTRY_COMPARE_WITH_TIMEOUT(page->serverCombo()->count(), 2, 10000);
    page->serverCombo()->setCurrentIndex(page->serverCombo()->findData(u"data"_s));
    QCOMPARE(page->serverDataset(), u"data"_s);
    QVERIFY(page->summary().contains(u"nothing is uploaded"_s));
    wizard->next();
    wizard->next();
    wizard->next();
    QTRY_VERIFY_WITH_TIMEOUT(!wizard->submittedUuid().isEmpty(), 30000);
    const QString uuid = wizard->submittedUuid();
    wizard->accept();
    JobDetailView *detail = window.jobView(uuid);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 90000);
    // The worker laid the dataset's files out for main(): no fallback to the repository's copy.
    QTRY_VERIFY_WITH_TIMEOUT(
        detail->logView()->text()->toPlainText().contains(u"final test accuracy"_s), 10000);
    const QString log = detail->logView()->text()->toPlainText();
    QVERIFY2(!log.contains(u"no iris.csv"_s), qPrintable(log));
    QVERIFY2(log.contains(u"manifest"_s), qPrintable(log));
}

// A task that saved a checkpoint and failed: its job page says which attempt's checkpoint the
// retry starts from, and the retry finds it in DDL_CHECKPOINT_DIR (docs/checkpoints.md).
void TestDesktopJobFlow::retryShowsItsCheckpoint()
{
    const QString uuid = ::submitCommandJob(
        *m_window,
        u"checkpointed"_s,
        u"if [ \"$DDL_TASK_ATTEMPT\" = 1 ]; then echo step-7 > \"$DDL_CHECKPOINT_DIR/state\"; "
        u"exit 3; fi; echo resumed from $(cat \"$DDL_CHECKPOINT_DIR/state\")"_s,
        1,
        0,
        1);
    QVERIFY(!uuid.isEmpty());
    JobDetailView *detail = m_window->openJob(uuid);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 30000);
    auto *checkpoints = detail->findChild<QLabel *>(u"checkpoints"_s);
    QVERIFY(checkpoints);
    QTRY_VERIFY2_WITH_TIMEOUT(checkpoints->text().contains(u"from attempt 1"_s),
                              qPrintable(checkpoints->text()),
                              10000);
    QVERIFY2(checkpoints->text().contains(u"main #0"_s), qPrintable(checkpoints->text()));
    // The retry's log (the task table's last row, attempt 2) shows what it read there.
    auto *table = detail->findChild<QTableView *>(u"taskTable"_s);
    const QModelIndex last = table->model()->index(table->model()->rowCount() - 1, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(last).center());
    QTRY_VERIFY_WITH_TIMEOUT(
        detail->logView()->text()->toPlainText().contains(u"resumed from step-7"_s), 10000);
}

void TestDesktopJobFlow::cancelAndClone()
{
    MainWindow &window = *m_window;
    JobDetailView *detail = submitCommandJob(u"long-sleep"_s, u"echo started; sleep 60"_s);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"RUNNING"_s, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(detail->logView()->text()->toPlainText().contains(u"started"_s),
                             10000);
    auto *cancel = detail->findChild<QPushButton *>(u"cancelButton"_s);
    QVERIFY(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    auto *confirmation = detail->findChild<QMessageBox *>(u"stopConfirmation"_s);
    QVERIFY(confirmation);
    QTest::mouseClick(confirmation->findChild<QPushButton *>(u"stopButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"STOPPED"_s, 15000);
    QVERIFY(!cancel->isEnabled());

    // Clone: the job's spec lands in the editor, valid and ready to change.
    QTest::mouseClick(detail->findChild<QPushButton *>(u"cloneButton"_s), Qt::LeftButton);
    auto *editor = window.findChild<JobEditor *>(u"jobEditor"_s);
    QCOMPARE(window.workspace()->currentWidget(), editor);
    QVERIFY(editor->spec());
    QCOMPARE(editor->spec()->jobName, u"long-sleep"_s);
    QCOMPARE(editor->spec()->taskRoles.first().command, u"echo started; sleep 60"_s);

    // The home page: the cluster, the user's jobs by state (a click lists them), and a job that
    // waits with the server's reason for it.
    ddl::JobSubmit tooBig;
    ddl::JobSpec big = *editor->spec();
    big.jobName = u"needs-eight-gpus"_s;
    big.taskRoles.first().gpuNumber = 8;
    tooBig.spec = big.toJson();
    tooBig.allowUnschedulable = true;
    std::unique_ptr<ddl::ApiRequest> queued(window.session()->client()->submitJob(tooBig));
    const bool accepted = bool(queued->waitForFinished());
    QVERIFY2(accepted, accepted ? "" : qPrintable(queued->result().error().message));
    const QString waitingUuid = queued->result()->json().value(u"uuid"_s).toString();
    auto *home = window.findChild<HomeView *>(u"homeView"_s);
    QVERIFY(home);
    window.workspace()->setCurrentWidget(home);
    QTRY_VERIFY_WITH_TIMEOUT(home->clusterText().startsWith(u"1 of 1 worker"_s), 10000);
    QVERIFY2(home->clusterText().contains(u"GPUs: 0 in use"_s), qPrintable(home->clusterText()));
    QTRY_VERIFY_WITH_TIMEOUT(home->jobCount(u"STOPPED"_s) >= 1
                                 && home->waitingList()->topLevelItemCount() >= 1,
                             10000);
    QCOMPARE(home->jobCount(u"WAITING"_s), home->waitingList()->topLevelItemCount());
    QTreeWidgetItem *waiting = home->waitingList()->topLevelItem(0);
    QCOMPARE(waiting->text(0), u"needs-eight-gpus"_s);
    QVERIFY2(waiting->text(1).contains(u"GPU"_s), qPrintable(waiting->text(1)));
    QTest::mouseClick(home->findChild<QPushButton *>(u"countSTOPPED"_s), Qt::LeftButton);
    QCOMPARE(window.workspace()->currentWidget(), window.jobListView());
    QCOMPARE(window.jobModel()->stateFilter(), QStringList{u"STOPPED"_s});
    std::unique_ptr<ddl::ApiRequest> stopped(window.session()->client()->cancelJob(waitingUuid));
    QVERIFY(stopped->waitForFinished());

    // The list's filters and order are the server's: a state picked in the menu, a text typed
    // in the box (sent after a pause, any case), a header clicked; the count is the server's
    // count of what matches, not of the rows loaded.
    JobListModel *jobs = window.jobModel();
    JobListView *list = window.jobListView();
    list->stateActions().at(3)->trigger(); // FAILED, with STOPPED from the home page
    QCOMPARE(jobs->stateFilter(), (QStringList{u"FAILED"_s, u"STOPPED"_s}));
    QTRY_COMPARE_WITH_TIMEOUT(jobs->total(), 2, 10000); // the two stopped just now
    QCOMPARE(jobs->record(1)->uuid, detail->uuid());
    list->findChild<QAction *>(u"allStates"_s)->trigger();
    QVERIFY(jobs->stateFilter().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(jobs->total() > 1, 10000);

    list->findChild<QLineEdit *>(u"searchEdit"_s)->setText(u"LONG-sl"_s);
    QTRY_COMPARE_WITH_TIMEOUT(jobs->total(), 1, 10000);
    QCOMPARE(jobs->rowCount(), 1);
    QCOMPARE(jobs->record(0)->uuid, detail->uuid());
    QVERIFY2(list->findChild<QLabel *>(u"jobCount"_s)->text().startsWith(u"1 "_s),
             qPrintable(list->findChild<QLabel *>(u"jobCount"_s)->text()));
    list->findChild<QLineEdit *>(u"searchEdit"_s)->clear();
    QTRY_VERIFY_WITH_TIMEOUT(jobs->total() > 1, 10000);

    list->table()->sortByColumn(JobListModel::NameColumn, Qt::AscendingOrder);
    const auto namesInOrder = [jobs] {
        QStringList names;
        for (int row = 0; row < jobs->rowCount(); ++row)
            names << jobs->record(row)->name.toLower();
        QStringList sorted = names;
        std::sort(sorted.begin(), sorted.end());
        return jobs->rowCount() > 1 && !jobs->isFetching() && names == sorted;
    };
    QTRY_VERIFY_WITH_TIMEOUT(namesInOrder(), 10000);
    list->table()->sortByColumn(JobListModel::SubmittedColumn, Qt::DescendingOrder);
    QTRY_COMPARE_WITH_TIMEOUT(jobs->record(0) ? jobs->record(0)->uuid : QString(), waitingUuid,
                              10000);
}

void TestDesktopJobFlow::largeLogLoadsByWindows()
{
    // About 2.4 MB of numbered lines: bigger than a window many times over.
    JobDetailView *detail = submitCommandJob(
        u"chatty"_s,
        u"python3 -c \"import sys; [sys.stdout.write('line %07d of the log\\n' % i) "
        "for i in range(120000)]\""_s);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 60000);
    LogView *logs = detail->logView();
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"line 0119999 of the log"_s),
                             15000);
    LogWindowLoader *loader = logs->loader();
    QTRY_VERIFY_WITH_TIMEOUT(loader->logSize() > 2 * 1024 * 1024, 10000);
    // Followed to the end, but only what the window holds is in memory and on screen.
    QVERIFY(logs->text()->toPlainText().size() < 3 * LogWindowLoader::WindowBytes);
    QVERIFY(!logs->text()->toPlainText().contains(u"line 0000000 "_s));

    // A jump to the middle: a window that starts on a line of its own.
    QSignalSpy loaded(loader, &LogWindowLoader::windowLoaded);
    logs->findChild<QCheckBox *>(u"followCheck"_s)->setChecked(false);
    loader->loadAt(loader->logSize() / 2);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 10000);
    const qint64 start = loaded.last().at(0).toLongLong();
    QVERIFY(start > 1024 * 1024 && start < loader->logSize());
    const QString text = logs->text()->toPlainText();
    QVERIFY2(text.startsWith(u"line "_s), qPrintable(text.left(40)));
    QVERIFY(text.size() <= LogWindowLoader::WindowBytes);
    // Each line is 24 bytes after the worker's few lines of preamble: the first line's number
    // says where it lies.
    const qint64 preamble = start - text.mid(5, 7).toLongLong() * 24;
    QVERIFY2(preamble >= 0 && preamble < 2048, qPrintable(QString::number(preamble)));
}

void TestDesktopJobFlow::logStreamsAndSearch()
{
    // 300 KB on each stream, one line to stdout and one to stderr in turn.
    JobDetailView *detail =
        submitCommandJob(u"two-streams"_s,
                         u"python3 -c \"import sys; [(sys.stdout.write('out %05d\\n' % i), "
                         "sys.stderr.write('err %05d\\n' % i)) for i in range(30000)]\""_s);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 60000);
    LogView *logs = detail->logView();
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"err 29999"_s), 15000);

    // The stream filter: only stderr's lines, from its own log.
    auto *streams = logs->findChild<QComboBox *>(u"streamCombo"_s);
    QVERIFY(streams);
    streams->setCurrentIndex(streams->findData(int(ddl::LogStream::Stderr)));
    QCOMPARE(logs->loader()->stream(), ddl::LogStream::Stderr);
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"err 29999"_s), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(logs->loader()->logSize(), qint64(30000 * 10), 10000);
    const QStringList lines = logs->text()->toPlainText().split(u'\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 1000);
    for (const QString &line : lines)
        QVERIFY2(line.startsWith(u"err "_s), qPrintable(line));

    // Back to everything, and a search for a line far before the window on screen.
    streams->setCurrentIndex(streams->findData(int(ddl::LogStream::All)));
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"out 29999"_s), 10000);
    QVERIFY(!logs->text()->toPlainText().contains(u"out 00042"_s));
    const auto translated = [](const char *source) {
        return QCoreApplication::translate("ddl::desktop::LogView", source);
    };
    auto *search = logs->findChild<QLineEdit *>(u"logSearch"_s);
    auto *next = logs->findChild<QPushButton *>(u"findNextButton"_s);
    auto *previous = logs->findChild<QPushButton *>(u"findPreviousButton"_s);
    auto *status = logs->findChild<QLabel *>(u"searchStatus"_s);
    QVERIFY(search && next && previous && status);
    search->setText(u"out 00042"_s);
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(status->text(), translated("Searching…"));
    QTRY_COMPARE_WITH_TIMEOUT(logs->text()->textCursor().selectedText(), u"out 00042"_s, 10000);
    QVERIFY(logs->loader()->windowStart() < 4096);
    QVERIFY(!logs->findChild<QCheckBox *>(u"followCheck"_s)->isChecked());
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("%1 of %2").arg(u"1"_s, u"1"_s), 10000);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("No further match"), 10000);

    // Ten matches (err 00010 to err 00019): Next, Next, then Previous.
    search->setText(u"err 0001"_s);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(logs->text()->textCursor().selectedText(), u"err 0001"_s, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("%1 of %2").arg(u"1"_s, u"10"_s), 10000);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("%1 of %2").arg(u"2"_s, u"10"_s), 10000);
    // The window around the second match arrives a moment later; its match is selected.
    const auto selectedLine = [logs] {
        QTextCursor cursor = logs->text()->textCursor();
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        return cursor.selectedText();
    };
    QTRY_COMPARE_WITH_TIMEOUT(selectedLine(), u"err 00011"_s, 10000);
    QCOMPARE(logs->text()->textCursor().selectedText(), u"err 0001"_s);
    QTest::mouseClick(previous, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("%1 of %2").arg(u"1"_s, u"10"_s), 10000);
    QTest::mouseClick(previous, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), translated("No earlier match"), 10000);
}

// (The worker's first lines quote the command: the texts searched for are not in it as such.)
// Matches are selected exactly: after lines that end in "\r\n" (one separator in the document,
// two bytes in the log), and deep in a line longer than a window.
void TestDesktopJobFlow::searchInLongAndCrlfLines()
{
    JobDetailView *detail = submitCommandJob(
        u"long-lines"_s,
        u"python3 -c \"import sys; w = sys.stdout.write; [w('row %03d\\r\\n' % i) for i in "
        "range(300)]; w('crlf ' + 'needle\\r\\n'); w('x' * 400000 + ' far ' + 'needle\\n'); "
        "w('last line\\n')\""_s);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 60000);
    LogView *logs = detail->logView();
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"last line"_s), 15000);
    auto *search = logs->findChild<QLineEdit *>(u"logSearch"_s);
    auto *next = logs->findChild<QPushButton *>(u"findNextButton"_s);
    QVERIFY(search && next);

    search->setText(u"crlf needle"_s);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(logs->text()->textCursor().selectedText(), u"crlf needle"_s, 10000);

    // About 400 KB into its line: the window is loaded from inside the line, around the match.
    search->setText(u"far needle"_s);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(logs->text()->textCursor().selectedText(), u"far needle"_s, 10000);
    QVERIFY2(logs->loader()->windowStart() > 300000,
             qPrintable(QString::number(logs->loader()->windowStart())));
}

// A running task's log grows after the count reached its end: a later Next finds what was
// written since instead of answering from the finished count.
void TestDesktopJobFlow::searchFindsWhatARunningTaskWritesLater()
{
    JobDetailView *detail =
        submitCommandJob(u"late-match"_s,
                         u"python3 -c \"import time; print('ear' + 'ly', flush=True); time.sleep(10); "
                         "print('late ' + 'nee' + 'dle', flush=True); time.sleep(3)\""_s);
    QVERIFY(detail);
    LogView *logs = detail->logView();
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"early"_s), 30000);
    auto *search = logs->findChild<QLineEdit *>(u"logSearch"_s);
    auto *next = logs->findChild<QPushButton *>(u"findNextButton"_s);
    auto *status = logs->findChild<QLabel *>(u"searchStatus"_s);
    QVERIFY(search && next && status);
    search->setText(u"needle"_s);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(logs->searcher()->countComplete(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!logs->searcher()->isSearching(), 10000);
    QCOMPARE(logs->searcher()->countedMatches(), 0); // counted before the match was written

    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"late needle"_s), 30000);
    QTest::mouseClick(next, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(logs->text()->textCursor().selectedText(), u"needle"_s, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 30000);
}

void TestDesktopJobFlow::streamFilterFollowsARunningTask()
{
    // A tick on stderr every 0.2 s for about 8 s, nothing on stdout.
    JobDetailView *detail =
        submitCommandJob(u"ticking"_s,
                         u"python3 -c \"import sys, time; [(sys.stderr.write('tick %d\\n' % i), "
                         "time.sleep(0.2)) for i in range(40)]\""_s);
    QVERIFY(detail);
    LogView *logs = detail->logView();
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"tick 2\n"_s), 30000);
    QVERIFY(!logs->text()->toPlainText().contains(u"tick 39"_s));
    auto *follow = logs->findChild<QCheckBox *>(u"followCheck"_s);
    follow->setChecked(true);
    logs->setStream(ddl::LogStream::Stderr);
    QCOMPARE(logs->loader()->stream(), ddl::LogStream::Stderr);
    QVERIFY(logs->loader()->follows());
    // Followed on the stderr log: the ticks written from now on arrive as they are written.
    QTRY_VERIFY_WITH_TIMEOUT(logs->text()->toPlainText().contains(u"tick 39\n"_s), 30000);
    const QString text = logs->text()->toPlainText();
    QVERIFY2(text.startsWith(u"tick 0\n"_s), qPrintable(text.left(40)));
    QVERIFY(!text.contains(u"[ddl-worker]"_s));
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 30000);
    logs->setStream(ddl::LogStream::Stdout);
    QTRY_VERIFY_WITH_TIMEOUT(logs->loader()->isComplete(), 10000);
    QCOMPARE(logs->text()->toPlainText(), QString());
}

void TestDesktopJobFlow::restartResumesSession()
{
    const QString tokenFile = m_config.filePath(u"tokens.json"_s);
    QTRY_VERIFY(QFile::exists(tokenFile));
    QCOMPARE(int(QFile::permissions(tokenFile) & 0x0777),
             int(QFile::ReadUser | QFile::WriteUser)); // 0600: nothing for group or others
    m_window.reset();
    const auto keptTokens = [&tokenFile] {
        QFile file(tokenFile);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray before = keptTokens();
    // A new start: the pinned server and the kept refresh token log in without a password.
    MainWindow window(*m_settings);
    WorkspaceBuilder::build(window);
    window.show();
    window.restoreSession();
    QTRY_VERIFY_WITH_TIMEOUT(window.isLoggedIn(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.jobModel()->rowOf(m_uuid) >= 0, 10000);
    // The refresh spent the kept token and stores its successor (the keychain is tried first,
    // so the file may be written a moment later): wait for it before forging the file.
    QTRY_VERIFY_WITH_TIMEOUT(keptTokens() != before && !keptTokens().isEmpty(), 10000);

    // A kept token the server no longer takes (here: a forged one): back to the password,
    // with the reason, and the server still trusted.
    QFile tokens(tokenFile);
    QVERIFY(tokens.open(QIODevice::ReadOnly));
    QJsonObject kept = QJsonDocument::fromJson(tokens.readAll()).object();
    tokens.close();
    QCOMPARE(kept.size(), 1);
    kept.insert(kept.keys().first(), u"ddlr_forged"_s);
    QVERIFY(tokens.open(QIODevice::WriteOnly | QIODevice::Truncate));
    tokens.write(QJsonDocument(kept).toJson());
    tokens.close();
    MainWindow later(*m_settings);
    later.show();
    later.restoreSession();
    auto *status = later.findChild<QLabel *>(u"statusLabel"_s);
    QTRY_COMPARE_WITH_TIMEOUT(
        status->text(),
        QCoreApplication::translate("ddl::desktop::MainWindow",
                                    "Your session has expired. Log in again."),
        10000);
    QVERIFY(!later.isLoggedIn());
    QVERIFY(later.findChild<QPushButton *>(u"loginButton"_s)->isEnabled());
}

QTEST_MAIN(TestDesktopJobFlow)
#include "tst_desktop_jobflow.moc"
