// The desktop's Workers page shows the contribution ledger against a real ddl-server and real
// ddl-worker processes: the signed-in user's own worker, enrolled with a token made for them,
// runs their job and the page shows its task, job and CPU time and the owner's total; a worker
// that is not theirs shows no ledger, only why.
#include "clusterharness.h"
#include "desktoptestsupport.h"
#include "serverprocess.h"

#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "models/workermodel.h"
#include "views/ledgerpanel.h"
#include "views/mainwindow.h"
#include "views/workersview.h"

#include <QLocale>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

class TestDesktopLedger : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void workersPageShowsTheLedger();

private:
    int rowOf(WorkersView *workers, const QString &name) const;

    QTemporaryDir m_config;
    ClusterHarness m_cluster;
    std::unique_ptr<DesktopSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestDesktopLedger::initTestCase()
{
    QVERIFY(m_config.isValid());
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    m_settings = std::make_unique<DesktopSettings>(m_config.filePath(u"ddl-desktop.ini"_s));
    m_settings->setUseKeychain(false);
    m_window = std::make_unique<MainWindow>(*m_settings);
    WorkspaceBuilder::build(*m_window);
    m_window->show();
    QString problem = connectAndTrust(*m_window, m_cluster.serverUrl());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    problem = registerThroughUi(*m_window, u"grace@example.com"_s, u"compiler compiler"_s);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    int exitCode = -1;
    QString errors;
    const QString token = ServerProcess::runCommand({u"token"_s,
                                                     u"create"_s,
                                                     u"--data-dir"_s,
                                                     m_cluster.serverDataDir(),
                                                     u"--owner"_s,
                                                     u"grace@example.com"_s},
                                                    &exitCode,
                                                    &errors)
                              .trimmed();
    QVERIFY2(exitCode == 0 && !token.isEmpty(), qPrintable(errors));
    QVERIFY(m_cluster.startNamedWorker(u"grace-box"_s, {u"--token"_s, token, u"--gpus"_s, u"0"_s}));
}

int TestDesktopLedger::rowOf(WorkersView *workers, const QString &name) const
{
    for (int row = 0; row < workers->model()->rowCount(); ++row) {
        if (workers->model()->index(row, WorkerModel::NameColumn).data().toString() == name)
            return row;
    }
    return -1;
}

void TestDesktopLedger::workersPageShowsTheLedger()
{
    auto *workers = m_window->findChild<WorkersView *>(u"workersView"_s);
    QVERIFY(workers);
    m_window->workspace()->setCurrentWidget(workers);
    QTRY_COMPARE_WITH_TIMEOUT(workers->model()->rowCount(), 1, 15000);
    LedgerPanel *ledger = workers->ledger();
    // Nothing run yet: the owner's one worker gave nothing.
    QTRY_VERIFY_WITH_TIMEOUT(ledger->ownerText().contains(u"Tasks run: 0"_s), 15000);

    const QString uuid = submitCommandJob(
        *m_window, u"ledger-job"_s, u"python3 -c 'import time; time.sleep(1.5)'"_s);
    QVERIFY(!uuid.isEmpty());
    workers->table()->selectRow(rowOf(workers, u"grace-box"_s));
    // Refreshed with the list until the task's end is in the ledger.
    QTRY_VERIFY2_WITH_TIMEOUT(
        ledger->workerText().contains(u"Tasks run: 1 (1 succeeded, 0 failed)"_s),
        qPrintable(ledger->workerText() + m_cluster.workerLog(u"grace-box"_s)),
        60000);
    QVERIFY2(ledger->workerText().startsWith(u"grace-box gave:"_s),
             qPrintable(ledger->workerText()));
    QVERIFY(ledger->workerText().contains(u"Jobs run: 1"_s));
    QVERIFY(ledger->workerText().contains(u"Preemptions: 0"_s));
    // The job has no code or data to fetch; its log (the worker's own lines too) went up.
    const QString none = QLocale().formattedDataSize(0);
    QVERIFY(ledger->workerText().contains(u"Downloaded: "_s + none));
    QVERIFY2(!ledger->workerText().contains(u"Uploaded: "_s + none),
             qPrintable(ledger->workerText()));
    QTRY_VERIFY_WITH_TIMEOUT(ledger->ownerText().contains(u"Tasks run: 1 (1 succeeded"_s), 15000);
    QVERIFY2(ledger->ownerText().startsWith(u"Your 1 worker(s) gave:"_s) ||
                 ledger->ownerText().startsWith(u"Your 1 worker gave:"_s),
             qPrintable(ledger->ownerText()));

    // A worker enrolled with the harness's token has no owner: no ledger for grace, only why.
    QVERIFY(m_cluster.startNamedWorker(u"stranger-box"_s, {u"--gpus"_s, u"0"_s}));
    QTRY_COMPARE_WITH_TIMEOUT(workers->model()->rowCount(), 2, 20000);
    workers->table()->selectRow(rowOf(workers, u"stranger-box"_s));
    QTRY_VERIFY2_WITH_TIMEOUT(
        ledger->workerText().contains(u"not yours"_s), qPrintable(ledger->workerText()), 15000);
    // The owner's totals stay theirs.
    QVERIFY(ledger->ownerText().contains(u"Tasks run: 1 (1 succeeded"_s));

    // A new sign-in on the same client (the desktop does this after a logout): nothing the last
    // account read stays on the page for the next one.
    ledger->setClient(m_window->session()->client());
    QVERIFY2(ledger->ownerText().isEmpty(), qPrintable(ledger->ownerText()));
    QVERIFY(ledger->workerText().isEmpty());
}

QTEST_MAIN(TestDesktopLedger)
#include "tst_desktop_ledger.moc"
