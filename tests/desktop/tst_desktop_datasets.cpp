// The datasets screen against a real ddl-server: a folder dragged onto it (real drag events;
// a file or several items are refused with a message) is uploaded as a dataset (trusting the
// server by its CA file this time), a changed folder sends only what changed, delete removes
// it; and the messages for a server that is not there.
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "api/datasetupload.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "core/tokenstore.h"
#include "models/datasetmodel.h"
#include "views/datasetsview.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;
using ddl::DatasetUpload;

static void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

class TestDesktopDatasets : public QObject
{
    Q_OBJECT

private slots:
    void unreachableServer();
    void dropUploadChangeDelete();

private:
    QTemporaryDir m_dir;
};

void TestDesktopDatasets::unreachableServer()
{
    DesktopSettings settings(m_dir.filePath(u"a.ini"_s));
    TokenStore tokens(m_dir.path(), false);
    Session session(settings, tokens);
    QSignalSpy failed(&session, &Session::failed);
    // A port nobody listens on (the harness's server is not started here).
    session.connectToServer(u"https://127.0.0.1:1"_s);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
    QVERIFY2(failed.first().first().toString().startsWith(u"Cannot reach the server"_s),
             qPrintable(failed.first().first().toString()));
    session.connectToServer(u"http://example.com"_s);
    QCOMPARE(failed.size(), 2);
    QVERIFY2(failed.last().first().toString().contains(u"write https://example.com"_s),
             qPrintable(failed.last().first().toString()));
}

void TestDesktopDatasets::dropUploadChangeDelete()
{
    ClusterHarness cluster;
    QVERIFY(cluster.startServer());
    DesktopSettings settings(m_dir.filePath(u"b.ini"_s));
    TokenStore tokens(m_dir.path(), false);
    Session session(settings, tokens);
    QSignalSpy loggedIn(&session, &Session::loggedIn);
    QSignalSpy failed(&session, &Session::failed);
    connect(&session, &Session::connected, &session, [&session] {
        session.registerUser(u"data@example.com"_s, u"long enough"_s);
    });
    session.connectToServer(cluster.serverUrl(), cluster.caCert());
    QTRY_VERIFY_WITH_TIMEOUT(loggedIn.size() == 1 || !failed.isEmpty(), 15000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    QCOMPARE(settings.caFile(session.serverKey()), cluster.caCert());

    // The silent refresh: new tokens, the new refresh token kept, the client still signed in.
    QSignalSpy written(&tokens, &TokenStore::tokenWritten);
    QSignalSpy refreshed(&session, &Session::refreshed);
    session.refreshNow();
    QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!written.isEmpty(), 10000);
    QCOMPARE(session.state(), Session::State::LoggedIn);

    DatasetsView view;
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setClient(session.client());
    view.show();

    const QString folder = m_dir.filePath(u"flowers"_s);
    writeFile(folder + u"/a.csv"_s, "x,y\n1,2\n");
    writeFile(folder + u"/b.csv"_s, "x,y\n3,4\n");
    QByteArray big(200 * 1024, '\0');
    for (int i = 0; i < big.size(); ++i)
        big[i] = char(i * 7 % 251);
    writeFile(folder + u"/images/big.bin"_s, big);

    // Dragged from the file manager: the enter, move and drop events a real drag delivers to
    // the screen (the widget under the cursor that takes drops). A file, or several items, are
    // refused while dragging, with the reason on a line of its own beside the status line, and
    // nothing starts.
    QSignalSpy finished(&view, &DatasetsView::uploadFinished);
    const QString hint = view.statusText();
    DragOutcome refused = dragAndDrop(&view, {QUrl::fromLocalFile(folder + u"/a.csv"_s)});
    QVERIFY(!refused.enterAccepted && !refused.moveAccepted && !refused.dropAccepted);
    QVERIFY2(view.dropMessage().contains(u"a.csv is not a folder"_s),
             qPrintable(view.dropMessage()));
    QCOMPARE(view.statusText(), hint);
    QVERIFY(!view.currentUpload());
    refused = dragAndDrop(&view, {QUrl::fromLocalFile(folder), QUrl::fromLocalFile(m_dir.path())});
    QVERIFY(!refused.enterAccepted && !refused.dropAccepted);
    QVERIFY2(view.dropMessage().contains(u"one folder at a time (2 items"_s),
             qPrintable(view.dropMessage()));
    QVERIFY(!view.currentUpload());
    refused = dragAndDrop(&view, {QUrl(u"https://example.com/flowers/"_s)});
    QVERIFY(!refused.enterAccepted && !refused.dropAccepted);
    QVERIFY(!view.currentUpload());

    const DragOutcome dropped = dragAndDrop(&view, {QUrl::fromLocalFile(folder)});
    QVERIFY(dropped.enterAccepted && dropped.moveAccepted && dropped.dropAccepted);
    QCOMPARE(view.dropMessage(), QString());
    QVERIFY(view.currentUpload());
    QPointer<DatasetUpload> upload = view.currentUpload();
    QSignalSpy sent(upload.data(), &DatasetUpload::fileSent);
    // A file dragged over the screen during the upload: refused, and what the status line says
    // of the upload stays.
    const QString uploading = view.statusText();
    refused = dragAndDrop(&view, {QUrl::fromLocalFile(folder + u"/b.csv"_s)});
    QVERIFY(!refused.enterAccepted && !refused.dropAccepted);
    QVERIFY2(view.dropMessage().contains(u"b.csv is not a folder"_s),
             qPrintable(view.dropMessage()));
    QCOMPARE(view.statusText(), uploading);
    // A good drag takes the reason away at once; a refused one gets no leave event, so it goes
    // by itself.
    QTRY_COMPARE_WITH_TIMEOUT(view.dropMessage(), QString(), 2 * DatasetsView::DropMessageMs);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    QCOMPARE(sent.size(), 3);
    QCOMPARE(view.fileList()->topLevelItemCount(), 3);
    QTRY_VERIFY(view.model()->rowOf(u"flowers"_s) >= 0);
    const int row = view.model()->rowOf(u"flowers"_s);
    QCOMPARE(view.model()->dataset(row).value("file_count"_L1).toInt(), 3);
    QCOMPARE(view.model()->dataset(row).value("total_size"_L1).toInteger(), 16 + 200 * 1024);

    // One file changes: only it travels again.
    writeFile(folder + u"/b.csv"_s, "x,y\n3,5\n");
    view.uploadFolder(folder);
    upload = view.currentUpload();
    QSignalSpy sentAgain(upload.data(), &DatasetUpload::fileSent);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 20000);
    QVERIFY(finished.last().first().toBool());
    QCOMPARE(sentAgain.size(), 1);
    QCOMPARE(sentAgain.first().first().toString(), u"b.csv"_s);
    QTRY_COMPARE(view.model()->rowCount(), 1);

    view.deleteDataset(u"flowers"_s);
    QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 0, 10000);
}

QTEST_MAIN(TestDesktopDatasets)
#include "tst_desktop_datasets.moc"
