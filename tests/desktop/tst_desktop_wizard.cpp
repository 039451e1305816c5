// The submit wizard's checks on real git repositories (no server needed until the last page):
// a dirty tree is refused with its files listed and passes once committed; the package preview
// names HEAD's commit and the largest files; the review refuses what the validator refuses.
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "jobspec/jobspec.h"
#include "wizard/datasetpage.h"
#include "wizard/folderfield.h"
#include "wizard/gitpage.h"
#include "wizard/reviewpage.h"
#include "wizard/submitwizard.h"

#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static QString headCommit(const QString &repo)
{
    QProcess git;
    git.setWorkingDirectory(repo);
    git.start(u"git"_s, {u"rev-parse"_s, u"HEAD"_s});
    git.waitForFinished(10000);
    return QString::fromUtf8(git.readAllStandardOutput()).trimmed();
}

static ddl::JobSpec ddlSpec()
{
    ddl::JobSpec spec;
    spec.kind = ddl::JobSpec::Kind::Ddl;
    spec.jobName = u"my-model"_s;
    ddl::TaskRole role;
    role.name = u"worker"_s;
    spec.taskRoles = {role};
    return spec;
}

class TestDesktopWizard : public QObject
{
    Q_OBJECT

private slots:
    void dirtyTreeRefusedThenCommitted();
    void reviewRefusesInvalidJob();
    void projectTaskYamlIsTheJob();
    void foldersDraggedOntoPages();
    void folderDragInspectedOnce();

private:
    ClusterHarness m_files; // only its temporary folder and git helpers
};

void TestDesktopWizard::dirtyTreeRefusedThenCommitted()
{
    QByteArray big(300 * 1024, 'x');
    const QString repo = m_files.makeRepo(u"project"_s, {{u"main.py"_s, "def main(d, o):\n    pass\n"},
                                                        {u"weights.bin"_s, big},
                                                        {u"data/train.csv"_s, "a,b\n1,2\n"}});
    QVERIFY(!repo.isEmpty());
    QFile notes(repo + u"/notes.txt"_s);
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not committed\n");
    notes.close();

    SubmitWizard wizard(nullptr, ddlSpec());
    wizard.show();
    QVERIFY(!wizard.currentPage()->isComplete()); // a DDL job needs its repository
    wizard.findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    QVERIFY(wizard.currentPage()->isComplete());
    wizard.next();
    auto *git = qobject_cast<GitPage *>(wizard.currentPage());
    QVERIFY(git);
    QTRY_VERIFY_WITH_TIMEOUT(!git->isChecking(), 20000);
    QVERIFY(!git->isComplete());
    auto *dirty = wizard.findChild<QPlainTextEdit *>(u"dirtyList"_s);
    QVERIFY(dirty->isVisible());
    QVERIFY(dirty->toPlainText().contains(u"?? notes.txt"_s));
    QVERIFY(wizard.findChild<QLabel *>(u"gitSummary"_s)->text().contains(u"git stash -u"_s));

    // The way out: commit, then check again.
    QVERIFY(ClusterHarness::git(repo, {u"add"_s, u"notes.txt"_s}));
    QVERIFY(ClusterHarness::git(repo, {u"commit"_s, u"-q"_s, u"-m"_s, u"Add notes"_s}));
    QTest::mouseClick(wizard.findChild<QPushButton *>(u"recheckButton"_s), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(git->isComplete(), 20000);
    const QString commit = headCommit(repo);
    QCOMPARE(git->result().commitId, commit);
    QCOMPARE(git->result().fileCount, 4);
    const QString summary = wizard.findChild<QLabel *>(u"gitSummary"_s)->text();
    QVERIFY2(summary.contains(commit.left(12)) && summary.contains(u"Add notes"_s),
             qPrintable(summary));
    auto *largest = wizard.findChild<QTreeWidget *>(u"largestFiles"_s);
    QCOMPARE(largest->topLevelItemCount(), 4);
    QCOMPARE(largest->topLevelItem(0)->text(0), u"weights.bin"_s);

    // The dataset page offers the project's data folder and counts it.
    wizard.next();
    auto *dataset = qobject_cast<DatasetPage *>(wizard.currentPage());
    QVERIFY(dataset);
    QCOMPARE(dataset->folderField()->path(), repo + u"/data"_s);
    QTRY_VERIFY(dataset->summary().contains(u"1 file"_s));
}

void TestDesktopWizard::reviewRefusesInvalidJob()
{
    SubmitWizard wizard(nullptr, ddlSpec());
    wizard.show();
    // An OpenPAI-less DDL job still needs a repository: use any committed one.
    const QString repo = m_files.makeRepo(u"tiny"_s, {{u"main.py"_s, "def main(d, o): pass\n"}});
    wizard.findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard.next();
    QTRY_VERIFY_WITH_TIMEOUT(wizard.currentPage()->isComplete(), 20000);
    wizard.next(); // dataset: none
    wizard.findChild<FolderField *>(u"datasetFolder"_s)->setPath(QString());
    wizard.next(); // resources
    QCOMPARE(wizard.currentId(), int(SubmitWizard::ResourcesPage));
    auto *name = wizard.findChild<QLineEdit *>(u"wizardJobName"_s);
    QCOMPARE(name->text(), u"tiny"_s); // the folder's name stands in for the template's
    name->setText(u"no spaces please"_s);
    wizard.next(); // review
    auto *review = qobject_cast<ReviewPage *>(wizard.currentPage());
    QVERIFY(review);
    QVERIFY(review->json().contains(u"\"no spaces please\""_s));
    wizard.next(); // refused: stays on the review
    QCOMPARE(wizard.currentId(), int(SubmitWizard::ReviewPage));
    QVERIFY(wizard.findChild<QLabel *>(u"reviewProblems"_s)->text().startsWith(u"jobName"_s));
}

// A project with a task.yaml: the wizard submits the job ddlcli submit would from that folder
// (its name, dataset_location, worker_required), shows the kind and command to change, and
// refuses a task.yaml with errors on the first page, naming the field.
void TestDesktopWizard::projectTaskYamlIsTheJob()
{
    const QString repo = m_files.makeRepo(
        u"yamlproject"_s,
        {{u"main.py"_s, "def main(d, o): pass\n"},
         {u"inputs/x.csv"_s, "a\n1\n"},
         {u"data/unused.csv"_s, "b\n2\n"},
         {u"task.yaml"_s, "job_data:\n  job_name: from-yaml\n  dataset:\n"
                          "    dataset_location: ./inputs\n  worker_required: 2\n"
                          "  gpu_per_worker: 0\n  retry_count: 1\n"}});
    QVERIFY(!repo.isEmpty());
    SubmitWizard wizard(nullptr, ddlSpec());
    wizard.show();
    wizard.findChild<FolderField *>(u"projectFolder"_s)->setPath(repo);
    wizard.next();
    QCOMPARE(wizard.currentId(), int(SubmitWizard::GitPage));
    QVERIFY2(wizard.findChild<QLabel *>(u"projectConfig"_s)->text().contains(u"from-yaml"_s),
             qPrintable(wizard.findChild<QLabel *>(u"projectConfig"_s)->text()));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.currentPage()->isComplete(), 20000);
    wizard.next();
    auto *dataset = qobject_cast<DatasetPage *>(wizard.currentPage());
    QVERIFY(dataset);
    QCOMPARE(dataset->folderField()->path(), repo + u"/inputs"_s); // not the ./data guess
    wizard.next();
    QCOMPARE(wizard.currentId(), int(SubmitWizard::ResourcesPage));
    QCOMPARE(wizard.findChild<QLineEdit *>(u"wizardJobName"_s)->text(), u"from-yaml"_s);
    QCOMPARE(wizard.findChild<QSpinBox *>(u"wizardWorkers"_s)->value(), 2);
    auto *kind = wizard.findChild<QComboBox *>(u"wizardKind"_s);
    QCOMPARE(kind->currentData().toInt(), int(ddl::JobSpec::Kind::Ddl));
    auto *command = wizard.findChild<QLineEdit *>(u"wizardCommand"_s);
    QVERIFY(!command->isEnabled()); // a DDL job runs main()
    const ddl::JobSpec spec = wizard.finalSpec();
    QCOMPARE(spec.jobName, u"from-yaml"_s);
    QCOMPARE(spec.taskRoles.first().taskNumber, 2);
    QCOMPARE(spec.retryCount, 1);

    // Run a command instead: it must be written, then it is the job's.
    kind->setCurrentIndex(kind->findData(int(ddl::JobSpec::Kind::OpenPai)));
    QVERIFY(command->isEnabled());
    wizard.next();
    QCOMPARE(wizard.currentId(), int(SubmitWizard::ResourcesPage));
    QVERIFY(wizard.findChild<QLabel *>(u"resourcesProblem"_s)->text().contains(u"command"_s));
    command->setText(u"python3 main.py --fast"_s);
    wizard.next();
    QCOMPARE(wizard.currentId(), int(SubmitWizard::ReviewPage));
    QCOMPARE(wizard.finalSpec().kind, ddl::JobSpec::Kind::OpenPai);
    QCOMPARE(wizard.finalSpec().taskRoles.first().command, u"python3 main.py --fast"_s);

    // A task.yaml with an error stops the wizard where the folder is chosen, naming the field.
    const QString broken = m_files.makeRepo(
        u"brokenyaml"_s,
        {{u"main.py"_s, "def main(d, o): pass\n"},
         {u"task.yaml"_s, "job_data:\n  job_name: broken\n  dataset:\n"
                          "    dataset_location: ./data\n  worker_required: -1\n"}});
    SubmitWizard other(nullptr, ddlSpec());
    other.show();
    other.findChild<FolderField *>(u"projectFolder"_s)->setPath(broken);
    other.next();
    QCOMPARE(other.currentId(), int(SubmitWizard::ProjectPage));
    const QString problem = other.findChild<QLabel *>(u"projectConfig"_s)->text();
    QVERIFY2(problem.contains(u"job_data.worker_required"_s), qPrintable(problem));
}

// The project and dataset pages take a folder dragged from the file manager (real enter, move
// and drop events on their folder fields); a file or several items are refused with the reason
// shown under the field, and the page keeps what it had.
void TestDesktopWizard::foldersDraggedOntoPages()
{
    const QString repo = m_files.makeRepo(
        u"dragged"_s, {{u"main.py"_s, "def main(d, o): pass\n"}, {u"data/a.csv"_s, "a\n1\n"}});
    QVERIFY(!repo.isEmpty());
    QTemporaryDir other;
    QVERIFY(QDir(other.path()).mkpath(u"images"_s));
    QFile image(other.filePath(u"images/cat.png"_s));
    QVERIFY(image.open(QIODevice::WriteOnly));
    image.write("not really a png");
    image.close();

    SubmitWizard wizard(nullptr, ddlSpec());
    wizard.show();
    auto *project = wizard.findChild<FolderField *>(u"projectFolder"_s);
    QVERIFY(project);
    DragOutcome outcome = dragAndDrop(project, {QUrl::fromLocalFile(repo + u"/main.py"_s)});
    QVERIFY(!outcome.enterAccepted && !outcome.moveAccepted && !outcome.dropAccepted);
    QVERIFY2(project->dropMessage().contains(u"main.py is not a folder"_s),
             qPrintable(project->dropMessage()));
    QVERIFY(project->path().isEmpty());
    QVERIFY(!wizard.currentPage()->isComplete());
    outcome = dragAndDrop(project, {QUrl::fromLocalFile(repo), QUrl::fromLocalFile(other.path())});
    QVERIFY(!outcome.enterAccepted && !outcome.dropAccepted);
    QVERIFY2(project->dropMessage().contains(u"(2 items"_s), qPrintable(project->dropMessage()));
    QVERIFY(project->path().isEmpty());

    outcome = dragAndDrop(project, {QUrl::fromLocalFile(repo)});
    QVERIFY(outcome.enterAccepted && outcome.moveAccepted && outcome.dropAccepted);
    QCOMPARE(project->path(), repo);
    QVERIFY(project->dropMessage().isEmpty()); // the message went with the good drop
    QVERIFY(wizard.currentPage()->isComplete());
    wizard.next();
    QTRY_VERIFY_WITH_TIMEOUT(wizard.currentPage()->isComplete(), 20000);
    wizard.next();
    auto *dataset = qobject_cast<DatasetPage *>(wizard.currentPage());
    QVERIFY(dataset);
    QCOMPARE(dataset->folderField()->path(), repo + u"/data"_s);

    outcome = dragAndDrop(dataset->folderField(),
                          {QUrl::fromLocalFile(other.filePath(u"images/cat.png"_s))});
    QVERIFY(!outcome.enterAccepted && !outcome.dropAccepted);
    QVERIFY(dataset->folderField()->dropMessage().contains(u"cat.png is not a folder"_s));
    QCOMPARE(dataset->folderField()->path(), repo + u"/data"_s); // kept
    outcome =
        dragAndDrop(dataset->folderField(), {QUrl::fromLocalFile(other.filePath(u"images"_s))});
    QVERIFY(outcome.dropAccepted);
    QCOMPARE(dataset->folderField()->path(), other.filePath(u"images"_s));
    QTRY_VERIFY(dataset->summary().contains(u"1 file"_s));
}

// What a drag carries is looked at on disk once, when it enters, not on every mouse move: a
// folder that goes away during the drag is still the drag's (the drop's upload says so later).
void TestDesktopWizard::folderDragInspectedOnce()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(u"moving"_s);
    QVERIFY(QDir().mkpath(folder));
    FolderField field(u"Folder"_s);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(folder)});
    const QPoint at = field.rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&field, &enter);
    QVERIFY(enter.isAccepted());
    QVERIFY(QDir(folder).removeRecursively());
    QDragMoveEvent move(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&field, &move);
    QVERIFY(move.isAccepted());
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&field, &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(field.path(), QFileInfo(folder).absoluteFilePath());
}

QTEST_MAIN(TestDesktopWizard)
#include "tst_desktop_wizard.moc"
