// The images screen against a real ddl-server and the machine's real podman: a local image
// (scripts/make-test-image.sh) pushed from the screen lands on the server as ddl://NAME, pushed
// again it sends no layer, an image podman does not have is refused saying so and leaves the list
// as it was, remove takes it off; the push dialog lists podman's images and checks the name.
#include "clusterharness.h"
#include "prerequisite.h"
#include "testimage.h"

#include "api/datasetupload.h"
#include "api/imagepush.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "core/tokenstore.h"
#include "models/imagemodel.h"
#include "views/imagesview.h"
#include "views/pushimagedialog.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;
using ddl::ImagePush;

class TestDesktopImages : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void pushAgainRefuseRemove();
    void dialogListsAndChecks();

private:
    // Pushes localImage as name from the screen; the push's outcome and the bytes it had to send.
    bool push(ImagesView &view,
              const QString &localImage,
              const QString &name,
              QString *message,
              qint64 *bytesSent);

    QTemporaryDir m_dir;
    QString m_podman;
};

void TestDesktopImages::initTestCase()
{
    m_podman = QStandardPaths::findExecutable(u"podman"_s);
    // scripts/install-deps.sh installs podman: where it ran (CI), it must be there.
    DDL_REQUIRE_PREREQUISITE(!m_podman.isEmpty(),
                             u"podman is not installed (scripts/install-deps.sh installs it): "
                             "no local image to push"_s);
    const QString built = ensureTestImage(m_podman);
    QVERIFY2(built.isEmpty(), qPrintable(built));
}

bool TestDesktopImages::push(ImagesView &view,
                             const QString &localImage,
                             const QString &name,
                             QString *message,
                             qint64 *bytesSent)
{
    QSignalSpy finished(&view, &ImagesView::pushFinished);
    view.pushImage(localImage, name);
    ImagePush *push = view.currentPush();
    if (!push)
        return false;
    *bytesSent = -1;
    connect(push, &ImagePush::finished, this, [push, bytesSent] {
        if (push->upload())
            *bytesSent = push->upload()->bytesToSend();
    });
    if (!finished.wait(120000) && finished.isEmpty())
        return false;
    *message = finished.first().at(1).toString();
    return finished.first().first().toBool();
}

void TestDesktopImages::pushAgainRefuseRemove()
{
    ClusterHarness cluster;
    QVERIFY(cluster.startServer());
    DesktopSettings settings(m_dir.filePath(u"a.ini"_s));
    TokenStore tokens(m_dir.path(), false);
    Session session(settings, tokens);
    QSignalSpy loggedIn(&session, &Session::loggedIn);
    QSignalSpy failed(&session, &Session::failed);
    connect(&session, &Session::connected, &session, [&session] {
        session.registerUser(u"images@example.com"_s, u"long enough"_s);
    });
    session.connectToServer(cluster.serverUrl(), cluster.caCert());
    QTRY_VERIFY_WITH_TIMEOUT(loggedIn.size() == 1 || !failed.isEmpty(), 15000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));

    ImagesView view;
    QAbstractItemModelTester tester(view.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setClient(session.client());
    view.show();
    QSignalSpy refreshed(&view, &ImagesView::refreshed);
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), 10000);
    QCOMPARE(view.model()->rowCount(), 0);

    QString message;
    qint64 sent = 0;
    QVERIFY2(push(view, TestImage, u"desk-test"_s, &message, &sent), qPrintable(message));
    QVERIFY2(message.contains(u"ddl://desk-test is on the server"_s), qPrintable(message));
    QVERIFY2(sent > 1000000, qPrintable(QString::number(sent))); // the python3 layer travelled
    QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowOf(u"desk-test"_s) >= 0, 10000);
    const int row = view.model()->rowOf(u"desk-test"_s);
    QCOMPARE(view.model()->index(row, ImageModel::NameColumn).data().toString(),
             u"ddl://desk-test"_s);
    QVERIFY(view.model()->object(row).value("digest"_L1).toString().startsWith(u"sha256:"_s));
    QVERIFY(view.model()->object(row).value("total_size"_L1).toInteger() > 1000000);

    // Pushed again: every layer is on the server already.
    QVERIFY2(push(view, TestImage, u"desk-test"_s, &message, &sent), qPrintable(message));
    QCOMPARE(sent, 0);

    // An image podman does not have: refused with podman's words and what to do; nothing new.
    QVERIFY(!push(view, u"localhost/no-such-image:9"_s, u"nothing"_s, &message, &sent));
    QVERIFY2(message.contains(u"podman save localhost/no-such-image:9 failed"_s) &&
                 message.contains(u"podman images lists the images you can push"_s),
             qPrintable(message));
    QCOMPARE(view.statusText(), message);
    refreshed.clear();
    view.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), 10000);
    QCOMPARE(view.model()->rowCount(), 1);
    // Something podman could take for an option never reaches it.
    QVERIFY(!push(view, u"--help"_s, u"x"_s, &message, &sent));
    QVERIFY2(message.contains(u"is not an image reference"_s), qPrintable(message));

    view.removeImage(u"desk-test"_s);
    QTRY_COMPARE_WITH_TIMEOUT(view.statusText(), u"Removed ddl://desk-test."_s, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowOf(u"desk-test"_s), -1, 10000);
}

void TestDesktopImages::dialogListsAndChecks()
{
    PushImageDialog dialog;
    QSignalSpy listed(&dialog, &PushImageDialog::localImagesListed);
    QVERIFY(listed.wait(60000));
    QVERIFY2(dialog.localImages().contains(TestImage), qPrintable(dialog.localImages().join(u' ')));
    auto *image = dialog.findChild<QComboBox *>(u"localImage"_s);
    auto *name = dialog.findChild<QLineEdit *>(u"imageName"_s);
    auto *problem = dialog.findChild<QLabel *>(u"pushProblem"_s);
    QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(image && name && problem && ok);
    image->setEditText(TestImage);
    QCOMPARE(dialog.imageName(), u"ddl-test"_s); // the name follows the image
    QVERIFY(ok->isEnabled());
    name->clear();
    QTest::keyClicks(name, u"bad name!"_s);
    QVERIFY(!ok->isEnabled());
    QVERIFY2(problem->text().contains(u"letters, digits and . _ -"_s), qPrintable(problem->text()));
    name->clear();
    QTest::keyClicks(name, u"mine"_s);
    QVERIFY(ok->isEnabled());
    image->setEditText(u"localhost/other:2"_s);
    QCOMPARE(dialog.imageName(), u"mine"_s); // typed by the user: kept
    image->setEditText(u"-rm"_s);
    QVERIFY(!ok->isEnabled());
    QVERIFY2(problem->text().contains(u"is not an image reference"_s), qPrintable(problem->text()));
}

QTEST_MAIN(TestDesktopImages)
#include "tst_desktop_images.moc"
