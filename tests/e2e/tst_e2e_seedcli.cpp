// ddlcli as the DDL seed's README writes it, with real processes: a project in a subfolder of a
// bigger repository, submitted from that subfolder with its task.yaml kept elsewhere; the seed's
// command lines for progress and download; the seed's lines on register, login and submit; and
// the refusals that come before anything is uploaded.
#include "clusterharness.h"
#include "polluntil.h"
#include "wire/jobstate.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

using namespace Qt::Literals::StringLiterals;

static const QString User = u"seed"_s;

// The seed's heading lines around a title.
static QString banner(const QString &title)
{
    const QString rule = QString(43, u'=') + u'\n';
    return rule + title + u'\n' + rule;
}

class TestE2eSeedCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void registerAndLoginPrintSeedLines();
    void subfolderProjectWithTaskYamlElsewhere();
    void jsonOutputHasNoBanners();
    void refusedBeforeAnyUpload_data();
    void refusedBeforeAnyUpload();
    void folderOutsideAnyRepository();

private:
    // Files the server holds as blobs or partial uploads.
    int serverFileCount() const;
    int jobCount();
    bool writeFile(const QString &path, const QByteArray &data);

    ClusterHarness m_cluster;
};

bool TestE2eSeedCli::writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
}

void TestE2eSeedCli::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startWorker({u"--slots"_s, u"2"_s}));
    QVERIFY(m_cluster.registerAndLogin(User, u"seed-password"_s));
}

int TestE2eSeedCli::serverFileCount() const
{
    int count = 0;
    for (const char *folder : {"server/blobs", "server/uploads"}) {
        QDirIterator it(
            m_cluster.path(QLatin1StringView(folder)), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            ++count;
        }
    }
    return count;
}

int TestE2eSeedCli::jobCount()
{
    const CliRun list = m_cluster.cli(User, {u"list"_s, u"--output=json"_s});
    if (list.exitCode != 0)
        return -1;
    const QJsonDocument document = QJsonDocument::fromJson(list.out.toUtf8());
    return int(document.object().value("total"_L1).toInteger(-1));
}

void TestE2eSeedCli::registerAndLoginPrintSeedLines()
{
    const QString user = u"newcomer"_s;
    QVERIFY(QDir().mkpath(m_cluster.path(u"users/"_s + user)));
    const CliRun registered = m_cluster.cli(
        user, {u"register"_s}, {}, "newcomer@example.org\nnew-password\nnew-password\n");
    QCOMPARE(registered.exitCode, 0);
    QVERIFY2(registered.out.contains(u"\nStatus: 201\nSuccessfully registered\n"_s),
             qPrintable(registered.out));
    const CliRun login =
        m_cluster.cli(user, {u"login"_s}, {}, "newcomer@example.org\nnew-password\n");
    QCOMPARE(login.exitCode, 0);
    QVERIFY2(login.out.contains(u"\nStatus: 200\nSuccessfully logged in\n"_s),
             qPrintable(login.out));
}

void TestE2eSeedCli::subfolderProjectWithTaskYamlElsewhere()
{
    // A bigger repository: the project is projects/lister, with its dataset beside main.py
    // (ignored by git, as it is sent on its own).
    const QString repo = m_cluster.makeRepo(
        u"monorepo"_s,
        {{u"README.md"_s, "# many projects\n"},
         {u"secrets/outside.txt"_s, "not part of the project\n"},
         {u"projects/lister/.gitignore"_s, "data/\n"},
         {u"projects/lister/helper.py"_s, "def greet():\n    return 'hello from helper'\n"},
         {u"projects/lister/lib/util.py"_s, "VALUE = 42\n"},
         {u"projects/lister/main.py"_s,
          "import os\n"
          "from helper import greet\n\n"
          "def main(dataset_dir, model_output_dir):\n"
          "    here = os.path.dirname(os.path.abspath(__file__))\n"
          "    files = sorted(os.path.relpath(os.path.join(d, f), here)\n"
          "                   for d, _, names in os.walk(here) for f in names\n"
          "                   if '__pycache__' not in d)\n"
          "    with open(os.path.join(model_output_dir, 'code.txt'), 'w') as out:\n"
          "        out.write('\\n'.join(files) + '\\n')\n"
          "    with open(os.path.join(dataset_dir, 'rows.csv')) as data:\n"
          "        rows = data.read()\n"
          "    with open(os.path.join(model_output_dir, 'rows.txt'), 'w') as out:\n"
          "        out.write(rows)\n"
          "    print(greet(), flush=True)\n"}});
    QVERIFY(!repo.isEmpty());
    const QString project = repo + u"/projects/lister"_s;
    QVERIFY(writeFile(project + u"/data/rows.csv"_s, "a,b\n1,2\n"));
    // An edit elsewhere in the repository is not sent, so it does not block the submit.
    QVERIFY(writeFile(repo + u"/README.md"_s, "# edited, not committed\n"));

    // The task.yaml lives outside the repository; dataset_location starts at the project folder.
    const QString taskYaml = m_cluster.path(u"configs/lister-task.yaml"_s);
    QVERIFY(writeFile(taskYaml,
                      "job_data:\n  dataset:\n    dataset_location: data/\n"
                      "  worker_required: 1\n"));

    const CliRun submit =
        m_cluster.cli(User, {u"submit"_s, u"--task_config="_s + taskYaml}, project);
    QVERIFY2(submit.exitCode == 0, qPrintable(submit.out + submit.err));
    const QString uuid = jobUuidOf(submit.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submit.out));
    // The seed's lines, in the seed's order.
    const QString expectedEnd = u"Status: 201\njob_uuid: "_s + uuid + u"\njob_type: ddl\n"_s;
    QVERIFY2(
        submit.out.startsWith(banner(u"Step 1: User login"_s) + banner(u"Step 2: Submit task"_s)),
        qPrintable(submit.out));
    QVERIFY2(submit.out.endsWith(expectedEnd), qPrintable(submit.out));

    QCOMPARE(m_cluster.waitForJobEnd(User, uuid), u"SUCCEEDED"_s);
    // What refusedBeforeAnyUpload counts sees what a submit uploads.
    QVERIFY(serverFileCount() >= 2); // the package and the dataset's file

    // progress and download exactly as the seed writes them.
    const CliRun progress = m_cluster.cli(
        User, {u"progress"_s, u"--job_uuid="_s + uuid, u"--task_config="_s + taskYaml}, project);
    QVERIFY2(progress.exitCode == 0, qPrintable(progress.err));
    QVERIFY2(progress.out.contains(u"status: SUCCEEDED"_s), qPrintable(progress.out));
    QVERIFY2(progress.out.contains(u"hello from helper"_s), qPrintable(progress.out));

    const QString dest = m_cluster.path(u"lister-model"_s);
    const CliRun download = m_cluster.cli(User,
                                          {u"download"_s,
                                           u"--job_uuid="_s + uuid,
                                           u"--dest="_s + dest,
                                           u"--task_config="_s + taskYaml},
                                          project);
    QVERIFY2(download.exitCode == 0, qPrintable(download.err));

    // What the job saw of its code: the project folder and its subfolders, nothing above it.
    QString codeList;
    QString rows;
    for (QDirIterator it(dest, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        const QString path = it.next();
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        if (path.endsWith(u"/code.txt"_s))
            codeList = QString::fromUtf8(file.readAll());
        else if (path.endsWith(u"/rows.txt"_s))
            rows = QString::fromUtf8(file.readAll());
    }
    QStringList files = codeList.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(files, (QStringList{u".gitignore"_s, u"helper.py"_s, u"lib/util.py"_s, u"main.py"_s}));
    QCOMPARE(rows, u"a,b\n1,2\n"_s);
}

void TestE2eSeedCli::jsonOutputHasNoBanners()
{
    const QString repo = m_cluster.makeExampleRepo(u"json-iris"_s);
    QVERIFY(!repo.isEmpty());
    const CliRun submit =
        m_cluster.cli(User, {u"submit"_s, u"--task_config=task.yaml"_s, u"--output=json"_s}, repo);
    QVERIFY2(submit.exitCode == 0, qPrintable(submit.err));
    // One JSON document and nothing else.
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(submit.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(submit.out));
    const QJsonObject answer = document.object();
    QCOMPARE(answer.value("job_type"_L1).toString(), u"ddl"_s);
    const QString uuid = answer.value("job_uuid"_L1).toString();
    QVERIFY(!uuid.isEmpty());
    QVERIFY(!submit.out.contains(u"Step 1"_s));
    QCOMPARE(m_cluster.cli(User, {u"cancel"_s, u"--job_uuid="_s + uuid}).exitCode, 0);
    // The worker may have started it: wait until it reported its task ended (outputs sent), so
    // that nothing it uploads lands in a later test's count of the server's files.
    const PollResult settled = pollUntil(
        [&] {
            const QJsonArray tasks = m_cluster.job(User, uuid).value("tasks"_L1).toArray();
            return !tasks.isEmpty()
                   && std::all_of(tasks.begin(), tasks.end(), [](const QJsonValue &task) {
                          return ddl::isFinalState(task.toObject().value("state"_L1).toString());
                      });
        },
        60000,
        u"the cancelled job's tasks to end"_s,
        250);
    QVERIFY2(settled, qPrintable(settled.message));
}

void TestE2eSeedCli::refusedBeforeAnyUpload_data()
{
    QTest::addColumn<QByteArray>("mainPy"); // empty: no main.py at all
    QTest::addColumn<QStringList>("errorParts");

    QTest::newRow("no main.py") << QByteArray()
                                << QStringList{u"there is no main.py in"_s,
                                               u"run ddlcli in the folder that holds main.py"_s};
    QTest::newRow("main.py without main()")
        << QByteArray("def train(dataset_dir, model_output_dir):\n    pass\n")
        << QStringList{u"main.py defines no main function"_s,
                       u"def main(dataset_dir, model_output_dir):"_s};
    QTest::newRow("main() with one parameter")
        << QByteArray("def main(dataset_dir):\n    pass\n")
        << QStringList{u"main.py defines main(dataset_dir)"_s, u"give main these two parameters"_s};
}

void TestE2eSeedCli::refusedBeforeAnyUpload()
{
    QFETCH(QByteArray, mainPy);
    QFETCH(QStringList, errorParts);

    // A project of its own, with a dataset of its own that the server has never seen.
    static int projects = 0;
    const QString name = u"refused-"_s + QString::number(++projects);
    QMap<QString, QByteArray> files{{u"project/train.py"_s, "print('training')\n"},
                                    {u"project/data/rows.csv"_s, name.toUtf8() + '\n'}};
    if (!mainPy.isEmpty())
        files.insert(u"project/main.py"_s, mainPy);
    const QString repo = m_cluster.makeRepo(name, files);
    QVERIFY(!repo.isEmpty());
    QVERIFY(writeFile(repo + u"/task.yaml"_s,
                      "job_data:\n  dataset:\n    dataset_location: data\n  worker_required: 1\n"));

    const int jobsBefore = jobCount();
    QVERIFY(jobsBefore >= 0);
    const int filesBefore = serverFileCount();
    const CliRun submit =
        m_cluster.cli(User, {u"submit"_s, u"--task_config=../task.yaml"_s}, repo + u"/project"_s);
    QCOMPARE(submit.exitCode, 1);
    for (const QString &part : errorParts)
        QVERIFY2(submit.err.contains(part), qPrintable(submit.err));
    // Nothing went up: no blob, no partial upload, no job; not even the login banner.
    QCOMPARE(serverFileCount(), filesBefore);
    QCOMPARE(jobCount(), jobsBefore);
    QVERIFY2(submit.out.isEmpty(), qPrintable(submit.out));
}

void TestE2eSeedCli::folderOutsideAnyRepository()
{
    // main.py and task.yaml in a plain folder, and a task.yaml inside a repository: the folder
    // ddlcli runs in decides, so both get the advice for that folder.
    const QString plain = m_cluster.path(u"plain-project"_s);
    QVERIFY(writeFile(plain + u"/main.py"_s, "def main(d, o):\n    pass\n"));
    QVERIFY(writeFile(plain + u"/data/rows.csv"_s, "1\n"));
    QVERIFY(writeFile(plain + u"/task.yaml"_s,
                      "job_data:\n  dataset:\n    dataset_location: data\n  worker_required: 1\n"));
    const QString repo = m_cluster.makeExampleRepo(u"yaml-holder"_s);
    QVERIFY(!repo.isEmpty());

    for (const QString &taskYaml : QStringList{u"task.yaml"_s, repo + u"/task.yaml"_s}) {
        const CliRun submit =
            m_cluster.cli(User, {u"submit"_s, u"--task_config="_s + taskYaml}, plain);
        QCOMPARE(submit.exitCode, 1);
        QVERIFY2(submit.err.contains(plain + u" is not inside a git repository"_s),
                 qPrintable(submit.err));
        QVERIFY2(submit.err.contains(u"run it in the folder that holds main.py"_s),
                 qPrintable(submit.err));
        QVERIFY2(submit.err.contains(u"git init, git add -A and git commit"_s),
                 qPrintable(submit.err));
        QVERIFY(submit.out.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestE2eSeedCli)
#include "tst_e2e_seedcli.moc"
