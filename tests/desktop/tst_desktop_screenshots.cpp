// Screenshots of each main screen of ddl-desktop with real data: a real ddl-server and
// ddl-worker, two jobs submitted through the wizard, a failing one, a dataset. The images go to
// $DDL_SCREENSHOT_DIR (scripts/screenshots.sh runs this under Xvfb into docs/screenshots), or to
// a temporary folder, and every one is checked to be a real picture of the window.
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "app/desktopapp.h"
#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "editor/jobeditor.h"
#include "jobs/jobsubmission.h"
#include "models/artifactmodel.h"
#include "models/joblistmodel.h"
#include "models/metricstore.h"
#include "views/homeview.h"
#include "views/joblistview.h"
#include "views/artifactbrowser.h"
#include "views/datasetsview.h"
#include "views/jobdetailview.h"
#include "views/logview.h"
#include "views/mainwindow.h"
#include "views/metricchartsview.h"
#include "views/jobutilisationview.h"
#include "views/utilisationchartsview.h"
#include "views/workersview.h"
#include "models/datasetmodel.h"
#include "models/workermodel.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

class TestDesktopScreenshots : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void screens();

private:
    void shoot(QWidget *widget, const QString &name);

    ClusterHarness m_cluster;
    QTemporaryDir m_scratch;
    QString m_outDir;
    QStringList m_shots;
};

void TestDesktopScreenshots::initTestCase()
{
    // As the application starts: English with its plural forms.
    QVERIFY(DesktopApp::installTranslation(*qApp, u"en"_s));
    m_outDir = qEnvironmentVariable("DDL_SCREENSHOT_DIR", m_scratch.filePath(u"shots"_s));
    QVERIFY(QDir().mkpath(m_outDir));
    QVERIFY(m_cluster.startServer());
    // Samples four times a second, so that a job of a few seconds draws utilisation lines.
    QVERIFY(m_cluster.startWorker({u"--sample-interval"_s, u"0.25"_s}));
}

void TestDesktopScreenshots::shoot(QWidget *widget, const QString &name)
{
    QCoreApplication::processEvents();
    QTest::qWait(150); // charts and tables settle
    const QString path = QDir(m_outDir).filePath(name + u".png"_s);
    const QImage image = widget->window()->grab().toImage();
    QVERIFY(image.width() >= 600 && image.height() >= 400);
    // A real picture has many colours, not a blank window.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 8, qPrintable(name));
    QVERIFY(image.save(path));
    m_shots << path;
}

void TestDesktopScreenshots::screens()
{
    DesktopSettings settings(m_scratch.filePath(u"ddl-desktop.ini"_s));
    settings.setUseKeychain(false);
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    window.resize(1200, 760);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Connect: the fingerprint to trust.
    auto *server = window.findChild<QLineEdit *>(u"serverEdit"_s);
    server->setText(m_cluster.serverUrl());
    QTest::mouseClick(window.findChild<QPushButton *>(u"connectButton"_s), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QPushButton *>(u"trustButton"_s)->isVisible(), 15000);
    window.findChild<QLineEdit *>(u"emailEdit"_s)->setText(u"ada@example.com"_s);
    shoot(&window, u"connect"_s);
    QTest::mouseClick(window.findChild<QPushButton *>(u"trustButton"_s), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QPushButton *>(u"loginButton"_s)->isEnabled(), 15000);
    const QString registered = registerThroughUi(window, u"ada@example.com"_s,
                                                 u"analytical engine"_s);
    QVERIFY2(registered.isEmpty(), qPrintable(registered));

    // Jobs: the iris example twice through the wizard, and a command that fails.
    QString problem;
    const QString repo = m_cluster.makeExampleRepo(u"iris-numpy"_s);
    const QString first = submitThroughWizard(window, repo, &problem);
    QVERIFY2(!first.isEmpty(), qPrintable(problem));
    ddl::JobSpec failing;
    failing.kind = ddl::JobSpec::Kind::OpenPai;
    failing.jobName = u"broken-loader"_s;
    failing.image = u"python3"_s;
    ddl::TaskRole role;
    role.name = u"main"_s;
    role.memoryMB = 256;
    // A few seconds of work first, for the utilisation graphs.
    role.command = u"echo 'loading shards'; python3 -c 'sum(i * i for i in range(40000000))'; "
                   u"echo 'shard 3 is corrupt' >&2; exit 3"_s;
    failing.taskRoles = {role};
    SubmissionRequest request;
    request.spec = failing;
    JobSubmission failSubmission(window.session()->client(), request);
    failSubmission.start();
    QTRY_COMPARE_WITH_TIMEOUT(failSubmission.stage(), JobSubmission::Stage::Done, 20000);
    // A job's name belongs to one live job of its user (as in OpenPAI): the second run of the
    // same project goes in once the first has ended.
    JobDetailView *firstDetail = window.jobView(first);
    QVERIFY(firstDetail);
    QTRY_COMPARE_WITH_TIMEOUT(firstDetail->state(), u"SUCCEEDED"_s, 90000);
    const QString last = submitThroughWizard(window, repo, &problem);
    QVERIFY2(!last.isEmpty(), qPrintable(problem));

    JobDetailView *detail = window.jobView(last);
    QVERIFY(detail);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 90000);
    QTRY_VERIFY_WITH_TIMEOUT(detail->charts()->pointCount(u"loss"_s) == 41, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(detail->logView()->text()->toPlainText().contains(u"final test"_s), 10000);
    detail->tabs()->setCurrentIndex(0);
    shoot(&window, u"job-logs"_s);
    detail->tabs()->setCurrentIndex(1);
    shoot(&window, u"job-metrics"_s);
    detail->tabs()->setCurrentWidget(detail->artifacts());
    QTRY_COMPARE_WITH_TIMEOUT(detail->artifacts()->model()->fileCount(), 2, 10000);
    detail->artifacts()->tree()->setCurrentIndex(detail->artifacts()->model()->index(0, 0));
    detail->artifacts()->preview(u"metrics.json"_s);
    QTRY_COMPARE_WITH_TIMEOUT(detail->artifacts()->previewKind(), ArtifactBrowser::PreviewKind::Text, 10000);
    shoot(&window, u"job-artifacts"_s);

    // The CPU and memory of the job that worked a few seconds before it failed.
    JobDetailView *busy = window.openJob(failSubmission.jobUuid());
    busy->tabs()->setCurrentWidget(busy->utilisation());
    QTRY_COMPARE_WITH_TIMEOUT(busy->state(), u"FAILED"_s, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(
        busy->utilisation()->charts()->pointCount(UtilisationChartsView::Chart::Cpu) >= 4, 15000);
    shoot(&window, u"job-utilisation"_s);

    // The list once every job has ended.
    window.workspace()->setCurrentWidget(window.jobListView());
    QTRY_VERIFY_WITH_TIMEOUT(window.jobModel()->rowCount() == 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT([&] {
        for (int row = 0; row < 3; ++row)
            if (!window.jobModel()->record(row)->isFinal())
                return false;
        return true;
    }(), 60000);
    shoot(&window, u"job-list"_s);

    // Home: the cluster, the jobs by state, what waits.
    auto *home = window.findChild<HomeView *>(u"homeView"_s);
    window.workspace()->setCurrentWidget(home);
    QTRY_VERIFY_WITH_TIMEOUT(home->jobCount(u"SUCCEEDED"_s) >= 0, 10000);
    shoot(&window, u"home"_s);

    // The editor with a mistake marked.
    auto *editor = window.findChild<JobEditor *>(u"jobEditor"_s);
    window.workspace()->setCurrentWidget(editor);
    editor->loadTemplate(u"ps-worker"_s);
    QString text = editor->text();
    text.replace(text.lastIndexOf(u"\"gpuNumber\": 0"_s), 14, u"\"gpuNumber\": -2"_s);
    editor->setText(text);
    QVERIFY(!editor->problems().isEmpty());
    shoot(&window, u"editor"_s);

    // The wizard's code page.
    ddl::JobSpec spec;
    spec.kind = ddl::JobSpec::Kind::Ddl;
    spec.jobName = u"iris-numpy"_s;
    ddl::TaskRole worker;
    worker.name = u"worker"_s;
    spec.taskRoles = {worker};
    SubmitWizard *wizard = window.openSubmitWizard(spec);
    wizard->findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard->next();
    QTRY_VERIFY_WITH_TIMEOUT(wizard->currentPage()->isComplete(), 20000);
    shoot(wizard, u"wizard-code"_s);
    wizard->reject();

    // Workers and datasets.
    auto *workers = window.findChild<WorkersView *>(u"workersView"_s);
    window.workspace()->setCurrentWidget(workers);
    QTRY_COMPARE_WITH_TIMEOUT(workers->model()->rowCount(), 1, 10000);
    workers->table()->selectRow(0);
    QTRY_VERIFY_WITH_TIMEOUT(
        workers->charts()->pointCount(UtilisationChartsView::Chart::Cpu) >= 2, 15000);
    shoot(&window, u"workers"_s);
    auto *datasets = window.findChild<DatasetsView *>(u"datasetsView"_s);
    window.workspace()->setCurrentWidget(datasets);
    QSignalSpy uploaded(datasets, &DatasetsView::uploadFinished);
    datasets->uploadFolder(repo + u"/data"_s);
    QTRY_COMPARE_WITH_TIMEOUT(uploaded.size(), 1, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(datasets->model()->rowCount(), 1, 10000);
    shoot(&window, u"datasets"_s);

    QCOMPARE(m_shots.size(), 11);
    qInfo("screenshots in %s", qPrintable(m_outDir));
}

QTEST_MAIN(TestDesktopScreenshots)
#include "tst_desktop_screenshots.moc"
