// The wizard's submit page against a real ddl-server: a dataset of several upload chunks is
// cancelled half-way (nothing is submitted, the wizard can go back), then submitted again: the
// upload goes on where it stopped, and the job is accepted.
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "jobs/jobsubmission.h"
#include "jobspec/jobspecparser.h"
#include "views/mainwindow.h"
#include "wizard/datasetpage.h"
#include "wizard/folderfield.h"
#include "wizard/submitpage.h"
#include "wizard/submitwizard.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonObject>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static constexpr qint64 MiB = 1024 * 1024;
// Eight upload chunks of 32 MiB: large enough that the bar shows 40 MiB well before the end even
// when loopback moves 300 MB/s and progress comes every 100 ms (80 MiB once finished between two
// reports, so the cancel came too late).
static constexpr qint64 DatasetBytes = 256 * MiB;

static QJsonObject getJson(ddl::ApiClient *client, const QString &path)
{
    ddl::ApiRequest *request = client->get(path);
    QSignalSpy finished(request, &ddl::ApiRequest::finished);
    if (!finished.wait(15000))
        return {};
    const QJsonObject json = request->result() ? request->result()->json() : QJsonObject();
    request->deleteLater();
    return json;
}

// Runs the event loop (QTRY_* would sleep between its rounds, which throttles the upload: its
// body is handed to the network thread piece by piece through this thread's loop) until the
// submission reaches stage.
static bool waitForStage(JobSubmission *submission, JobSubmission::Stage stage, int timeoutMs)
{
    if (submission->stage() == stage)
        return true;
    QEventLoop loop;
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    QObject::connect(submission, &JobSubmission::stageChanged, &loop,
                     [&loop, stage](JobSubmission::Stage now) {
                         if (now == stage)
                             loop.quit();
                     });
    loop.exec();
    return submission->stage() == stage;
}

class TestDesktopSubmitResume : public QObject
{
    Q_OBJECT

private slots:
    void cancelThenResume();
};

void TestDesktopSubmitResume::cancelThenResume()
{
    static_assert(DatasetBytes > 4 * ddl::BlobUpload::ChunkSize);
    ClusterHarness cluster;
    QVERIFY2(cluster.startServer(), qPrintable(cluster.serverLog()));
    QTemporaryDir config;
    DesktopSettings settings(config.filePath(u"ddl-desktop.ini"_s));
    settings.setUseKeychain(false);
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    window.show();
    QString problem = connectAndTrust(window, cluster.serverUrl());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    problem = registerThroughUi(window, u"grace@example.com"_s, u"compiler first"_s);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // Random bytes (no compression or deduplication helps), in a folder of their own.
    QTemporaryDir data;
    {
        QFile file(data.filePath(u"weights.bin"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QList<quint32> block(MiB / sizeof(quint32));
        for (qint64 written = 0; written < DatasetBytes; written += MiB) {
            QRandomGenerator::global()->fillRange(block.data(), block.size());
            QCOMPARE(file.write(reinterpret_cast<const char *>(block.constData()), MiB), MiB);
        }
    }

    const QString repo = cluster.makeExampleRepo(u"iris"_s);
    QFile taskYaml(repo + u"/task.yaml"_s);
    QVERIFY(taskYaml.open(QIODevice::ReadOnly));
    ddl::Result<ddl::JobSpec> spec = ddl::JobSpecParser::parseTaskYaml(taskYaml.readAll(),
                                                                        u"iris"_s);
    QVERIFY(spec.ok());
    SubmitWizard *wizard = window.openSubmitWizard(*spec);
    wizard->findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard->next();
    QTRY_VERIFY_WITH_TIMEOUT(wizard->currentPage()->isComplete(), 20000);
    wizard->next();
    auto *datasetPage = qobject_cast<DatasetPage *>(wizard->currentPage());
    QVERIFY(datasetPage);
    datasetPage->folderField()->setPath(data.path());
    QTRY_VERIFY_WITH_TIMEOUT(datasetPage->plan().startsWith(u"To upload"_s), 20000);
    wizard->next(); // resources
    wizard->next(); // review
    wizard->next(); // submit
    QCOMPARE(wizard->currentId(), int(SubmitWizard::SubmitPage));
    auto *page = qobject_cast<SubmitPageWidget *>(wizard->currentPage());
    auto *cancel = wizard->findChild<QPushButton *>(u"cancelSubmission"_s);
    auto *bar = wizard->findChild<QProgressBar *>(u"submitProgress"_s);

    // First try: cancelled like a person would, once the bar shows some of the dataset sent.
    QPointer<JobSubmission> first = page->submission();
    QVERIFY(first);
    QSignalSpy failed(first.data(), &JobSubmission::failed);
    qint64 cancelledAt = 0;
    connect(first.data(), &JobSubmission::progress, this, [&](qint64 done, qint64 total) {
        if (first->stage() != JobSubmission::Stage::UploadingDataset || cancelledAt > 0)
            return;
        QCOMPARE(total, DatasetBytes);
        if (done >= 40 * MiB && cancel->isEnabled()) {
            cancelledAt = done;
            QCOMPARE(bar->value(), int(done / 1024)); // the bar shows it (in KiB)
            QTest::mouseClick(cancel, Qt::LeftButton);
        }
    });
    QElapsedTimer clock;
    clock.start();
    QVERIFY(waitForStage(first, JobSubmission::Stage::Cancelled, 60000));
    qInfo("first try cancelled after %lld ms", clock.restart());
    QVERIFY(cancelledAt >= 40 * MiB && cancelledAt < DatasetBytes);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    QVERIFY2(page->statusText().startsWith(u"Cancelled"_s), qPrintable(page->statusText()));
    QVERIFY(!cancel->isEnabled());
    QVERIFY(!page->isComplete());
    QVERIFY(wizard->submittedUuid().isEmpty());
    // Nothing reached the job list.
    QCOMPARE(getJson(window.session()->client(), u"/v1/jobs"_s).value("total"_L1).toInteger(), 0);

    // The wizard is usable again: back to the review, and submit once more.
    wizard->back();
    QCOMPARE(wizard->currentId(), int(SubmitWizard::ReviewPage));
    wizard->next();
    QCOMPARE(wizard->currentId(), int(SubmitWizard::SubmitPage));
    JobSubmission *second = page->submission();
    QVERIFY(second && second != first);
    QVERIFY(cancel->isEnabled());
    qint64 firstDone = -1;
    qint64 lastDone = 0;
    connect(second, &JobSubmission::progress, this, [&](qint64 done, qint64) {
        if (second->stage() != JobSubmission::Stage::UploadingDataset)
            return;
        if (firstDone < 0)
            firstDone = done;
        lastDone = done;
    });
    QVERIFY(waitForStage(second, JobSubmission::Stage::Done, 60000));
    QVERIFY(!wizard->submittedUuid().isEmpty());
    qInfo("second try submitted after %lld ms", clock.elapsed());
    QCOMPARE(second->stage(), JobSubmission::Stage::Done);

    // It went on where it stopped: at least a chunk was on the server (it keeps what had arrived,
    // even of a chunk cut short), so less than the whole dataset travelled, and the progress
    // numbers start at the resume point, not at zero.
    const qint64 resumed = second->resumedBytes();
    // (It may exceed what the bar showed at the cancel: bytes still on their way arrived.)
    QVERIFY2(resumed >= ddl::BlobUpload::ChunkSize && resumed < DatasetBytes,
             qPrintable(u"resumed %1 of %2, cancelled at %3"_s.arg(resumed).arg(DatasetBytes)
                            .arg(cancelledAt)));
    const qint64 sentAgain = DatasetBytes - resumed;
    QVERIFY(sentAgain < DatasetBytes);
    QVERIFY2(firstDone >= resumed, qPrintable(QString::number(firstDone)));
    QCOMPARE(lastDone, DatasetBytes);
    QVERIFY2(page->statusText().contains(u"submitted"_s), qPrintable(page->statusText()));

    // The job was accepted, with the dataset it was given.
    const QString uuid = wizard->submittedUuid();
    const QJsonObject job = getJson(window.session()->client(), u"/v1/jobs/"_s + uuid);
    QCOMPARE(job.value("uuid"_L1).toString(), uuid);
    QVERIFY(!job.value("dataset_manifest"_L1).toString().isEmpty());
    QCOMPARE(getJson(window.session()->client(), u"/v1/jobs"_s).value("total"_L1).toInteger(), 1);
    wizard->accept();
}

QTEST_MAIN(TestDesktopSubmitResume)
#include "tst_desktop_submitresume.moc"
