// The desktop's utilisation graphs against a real ddl-server and a ddl-worker whose only GPU is
// a fake nvidia-smi on its PATH (no GPU here): a job's Utilisation tab draws CPU, memory and the
// fake GPU's series with points while the task runs, a waiting job says why it has none, and the
// Workers page draws the selected worker's machine.
#include "clusterharness.h"
#include "desktoptestsupport.h"
#include "fakenvidiasmi.h"

#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "models/workermodel.h"
#include "views/jobdetailview.h"
#include "views/jobutilisationview.h"
#include "views/mainwindow.h"
#include "views/utilisationchartsview.h"
#include "views/workersview.h"

#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;
using Chart = UtilisationChartsView::Chart;

class TestDesktopUtilisationFakeGpu : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void jobPageDrawsTaskSeries();
    void workersPageDrawsTheMachine();

private:
    QTemporaryDir m_config;
    ClusterHarness m_cluster;
    std::unique_ptr<DesktopSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestDesktopUtilisationFakeGpu::initTestCase()
{
    QVERIFY(m_config.isValid());
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    FakeNvidiaSmi gpu; // one card, 37% busy with 1234 MiB of 16384 in use
    QVERIFY(gpu.install(m_cluster.path(u"fake-gpu-bin"_s)));
    const QProcessEnvironment environment = gpu.environment();
    QVERIFY(m_cluster.startNamedWorker(
        u"fake-gpu"_s, {u"--sample-interval"_s, u"0.25"_s}, environment));
    m_settings = std::make_unique<DesktopSettings>(m_config.filePath(u"ddl-desktop.ini"_s));
    m_settings->setUseKeychain(false);
    m_window = std::make_unique<MainWindow>(*m_settings);
    WorkspaceBuilder::build(*m_window);
    m_window->show();
    QString problem = connectAndTrust(*m_window, m_cluster.serverUrl());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    problem = registerThroughUi(*m_window, u"grace@example.com"_s, u"compiler compiler"_s);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestDesktopUtilisationFakeGpu::jobPageDrawsTaskSeries()
{
    const QString uuid = submitCommandJob(
        *m_window, u"burn"_s, u"timeout 12 sh -c 'while :; do :; done'; true"_s, 1, 1);
    QVERIFY(!uuid.isEmpty());
    JobDetailView *detail = m_window->openJob(uuid);
    QVERIFY(detail);
    JobUtilisationView *view = detail->utilisation();
    detail->tabs()->setCurrentWidget(view);
    UtilisationChartsView *charts = view->charts();
    // Refreshed while the job runs: the lines grow as the worker's samples arrive.
    QTRY_VERIFY_WITH_TIMEOUT(charts->pointCount(Chart::Cpu) >= 2, 30000);
    const int early = charts->pointCount(Chart::Cpu);
    QCOMPARE(charts->seriesCount(Chart::Cpu), 1);
    QCOMPARE(charts->seriesCount(Chart::Memory), 1);
    QVERIFY(charts->pointCount(Chart::Memory) >= 2);
    QVERIFY(charts->isChartShown(Chart::GpuUtilisation));
    QCOMPARE(charts->seriesCount(Chart::GpuUtilisation), 1);
    QVERIFY(charts->pointCount(Chart::GpuMemory) >= 2);
    QVERIFY(charts->emptyText().isEmpty());
    QVERIFY(charts->noGpuText().isEmpty());

    // A second GPU job waits for the worker's only GPU: its tab says why it shows nothing.
    const QString waitingUuid = submitCommandJob(*m_window, u"second"_s, u"true"_s, 1, 1);
    QVERIFY(!waitingUuid.isEmpty());
    JobDetailView *waiting = m_window->openJob(waitingUuid);
    waiting->tabs()->setCurrentWidget(waiting->utilisation());
    QTRY_COMPARE_WITH_TIMEOUT(waiting->state(), u"WAITING"_s, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(waiting->utilisation()->charts()->emptyText(),
                              u"No samples yet: the job waits for a worker."_s,
                              10000);
    QVERIFY(!waiting->utilisation()->charts()->isChartShown(Chart::Cpu));

    detail->tabs()->setCurrentWidget(view);
    m_window->workspace()->setCurrentWidget(detail);
    QTRY_VERIFY_WITH_TIMEOUT(charts->pointCount(Chart::Cpu) > early, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(detail->state(), u"SUCCEEDED"_s, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(waiting->state(), u"SUCCEEDED"_s, 60000);
}

void TestDesktopUtilisationFakeGpu::workersPageDrawsTheMachine()
{
    auto *workers = m_window->findChild<WorkersView *>(u"workersView"_s);
    QVERIFY(workers);
    m_window->workspace()->setCurrentWidget(workers);
    QTRY_COMPARE_WITH_TIMEOUT(workers->model()->rowCount(), 1, 10000);
    QVERIFY(!workers->charts()->emptyText().isEmpty()); // nothing selected yet
    workers->table()->selectRow(0);
    UtilisationChartsView *charts = workers->charts();
    QTRY_VERIFY_WITH_TIMEOUT(charts->pointCount(Chart::Cpu) >= 2, 15000);
    QCOMPARE(charts->seriesCount(Chart::Memory), 1);
    // The machine's GPU, as the fake nvidia-smi reads it.
    QVERIFY(charts->isChartShown(Chart::GpuUtilisation));
    QVERIFY(charts->pointCount(Chart::GpuUtilisation) >= 2);
    // Refreshed with the list.
    const int before = charts->pointCount(Chart::Cpu);
    QTRY_VERIFY_WITH_TIMEOUT(charts->pointCount(Chart::Cpu) > before, 15000);
}

QTEST_MAIN(TestDesktopUtilisationFakeGpu)
#include "tst_desktop_utilisation.moc"
