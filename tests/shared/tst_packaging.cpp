#include "core/sha256.h"
#include "packaging/archiveextractor.h"
#include "packaging/githeadtree.h"
#include "packaging/gitworktree.h"
#include "packaging/packagebuilder.h"
#include "packaging/utf8locale.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace ddl;

namespace {

// One entry as read back from a package.
struct PackagedEntry
{
    QByteArray path;
    unsigned int type = 0;
    int perm = 0;
    qint64 mtime = 0;
    qint64 uid = -1;
    qint64 gid = -1;
    QByteArray symlink;
    QByteArray data;
};

QList<PackagedEntry> readPackage(const QString &path)
{
    const ScopedUtf8Locale utf8; // as the library does, so names read the same under LANG=C
    QList<PackagedEntry> entries;
    struct archive *a = archive_read_new();
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, QFile::encodeName(path).constData(), 65536) != ARCHIVE_OK) {
        archive_read_free(a);
        return entries;
    }
    struct archive_entry *entry = nullptr;
    while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
        PackagedEntry e;
        e.path = archive_entry_pathname_utf8(entry);
        e.type = archive_entry_filetype(entry);
        e.perm = int(archive_entry_perm(entry));
        e.mtime = archive_entry_mtime(entry);
        e.uid = archive_entry_uid(entry);
        e.gid = archive_entry_gid(entry);
        if (const char *target = archive_entry_symlink_utf8(entry))
            e.symlink = target;
        char buffer[4096];
        la_ssize_t n = 0;
        while ((n = archive_read_data(a, buffer, sizeof buffer)) > 0)
            e.data.append(buffer, n);
        entries.append(e);
    }
    archive_read_free(a);
    return entries;
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

mode_t modeOf(const QString &path)
{
    struct stat st
    {
    };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode : 0;
}

enum class Change {
    None,
    Modified,
    Staged,
    StagedNew,
    Untracked,
    UntrackedFolder,
    Ignored,
    Deleted
};

} // namespace

Q_DECLARE_METATYPE(Change)

class tst_Packaging : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void status_data();
    void status();
    void openFromSubfolder();
    void openErrors();
    void mergeInProgress();
    void conflictedMerge();
    void dirtyTreeRefused();
    void emptyRepositoryRefused();
    void packageContents();
    void reproducible();
    void submoduleSkipped();
    void relativePath();
    void folderOnlyPackage();
    void folderOnlyDirtiness_data();
    void folderOnlyDirtiness();
    void headTreeReadsCommittedFiles();

private:
    // A repository with a.py at its root and a project in projects/mnist (main.py, lib/m.py, a
    // link out of the project), committed.
    bool makeMonorepo(const QString &dir);
    // Runs git in dir; on failure prints its output and returns false.
    bool git(const QString &dir, const QStringList &arguments, QByteArray *output = nullptr);
    // Runs git in dir and returns its exit code (-1 when it did not finish).
    int gitExitCode(const QString &dir, const QStringList &arguments, QByteArray *output);
    // A repository with a.py and a .gitignore for *.log, committed.
    bool makeRepository(const QString &dir);

    QTemporaryDir m_home;
};

int tst_Packaging::gitExitCode(const QString &dir, const QStringList &arguments, QByteArray *output)
{
    QProcess process;
    process.setWorkingDirectory(dir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("git"), arguments);
    const bool finished =
        process.waitForFinished(60000) && process.exitStatus() == QProcess::NormalExit;
    *output = process.readAll();
    return finished ? process.exitCode() : -1;
}

bool tst_Packaging::git(const QString &dir, const QStringList &arguments, QByteArray *output)
{
    QByteArray text;
    if (gitExitCode(dir, arguments, &text) != 0) {
        qWarning("git %s failed: %s", qPrintable(arguments.join(u' ')), text.constData());
        return false;
    }
    if (output)
        *output = text;
    return true;
}

bool tst_Packaging::makeRepository(const QString &dir)
{
    return QDir().mkpath(dir) && git(dir, {QStringLiteral("init"), QStringLiteral("-q")}) &&
           git(dir,
               {QStringLiteral("config"),
                QStringLiteral("user.name"),
                QStringLiteral("DDL Test")}) &&
           git(dir,
               {QStringLiteral("config"),
                QStringLiteral("user.email"),
                QStringLiteral("test@ddl.invalid")}) &&
           writeFile(dir + u"/a.py", "print('a')\n") &&
           writeFile(dir + u"/.gitignore", "*.log\n") &&
           git(dir, {QStringLiteral("add"), QStringLiteral("-A")}) &&
           git(dir,
               {QStringLiteral("commit"),
                QStringLiteral("-q"),
                QStringLiteral("-m"),
                QStringLiteral("Initial commit\n\nWith a body.")});
}

bool tst_Packaging::makeMonorepo(const QString &dir)
{
    return makeRepository(dir) && writeFile(dir + u"/tools/deploy.sh", "echo deploy\n") &&
           writeFile(dir + u"/projects/mnist/main.py",
                     "def main(dataset_dir, model_output_dir):\n    pass\n") &&
           writeFile(dir + u"/projects/mnist/lib/m.py", "x = 1\n") &&
           ::symlink("../../a.py",
                     QFile::encodeName(dir + u"/projects/mnist/outside.py").constData()) == 0 &&
           git(dir, {QStringLiteral("add"), QStringLiteral("-A")}) &&
           git(dir, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("mnist")});
}

void tst_Packaging::initTestCase()
{
    QVERIFY(m_home.isValid());
    // Neither git nor libgit2 may see the configuration of whoever runs the tests.
    qputenv("HOME", QFile::encodeName(m_home.path()));
    qunsetenv("XDG_CONFIG_HOME");
    qputenv("GIT_CONFIG_NOSYSTEM", "1");
    QVERIFY(writeFile(m_home.filePath(QStringLiteral(".gitconfig")),
                      "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
                      "[protocol \"file\"]\n\tallow = always\n"));
}

void tst_Packaging::status_data()
{
    QTest::addColumn<Change>("change");
    QTest::addColumn<QString>("expectedLine");

    QTest::newRow("clean") << Change::None << QString();
    QTest::newRow("modified") << Change::Modified << QStringLiteral(" M a.py");
    QTest::newRow("staged") << Change::Staged << QStringLiteral("M  a.py");
    QTest::newRow("staged new file") << Change::StagedNew << QStringLiteral("A  new.py");
    QTest::newRow("untracked") << Change::Untracked << QStringLiteral("?? new.txt");
    QTest::newRow("untracked folder") << Change::UntrackedFolder << QStringLiteral("?? data/");
    QTest::newRow("ignored") << Change::Ignored << QString();
    QTest::newRow("deleted") << Change::Deleted << QStringLiteral(" D a.py");
}

void tst_Packaging::status()
{
    QFETCH(Change, change);
    QFETCH(QString, expectedLine);

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.path();
    QVERIFY(makeRepository(repo));
    switch (change) {
    case Change::None:
        break;
    case Change::Modified:
        QVERIFY(writeFile(repo + u"/a.py", "print('changed')\n"));
        break;
    case Change::Staged:
        QVERIFY(writeFile(repo + u"/a.py", "print('changed')\n"));
        QVERIFY(git(repo, {QStringLiteral("add"), QStringLiteral("a.py")}));
        break;
    case Change::StagedNew:
        QVERIFY(writeFile(repo + u"/new.py", "pass\n"));
        QVERIFY(git(repo, {QStringLiteral("add"), QStringLiteral("new.py")}));
        break;
    case Change::Untracked:
        QVERIFY(writeFile(repo + u"/new.txt", "new\n"));
        break;
    case Change::UntrackedFolder:
        QVERIFY(writeFile(repo + u"/data/one.txt", "1\n"));
        QVERIFY(writeFile(repo + u"/data/two.txt", "2\n"));
        break;
    case Change::Ignored:
        QVERIFY(writeFile(repo + u"/train.log", "loss 1.0\n"));
        QVERIFY(writeFile(repo + u"/logs/run.log", "loss 1.0\n"));
        break;
    case Change::Deleted:
        QVERIFY(QFile::remove(repo + u"/a.py"));
        break;
    }

    // What the reference implementation says must match.
    QByteArray porcelain;
    QVERIFY(git(repo, {QStringLiteral("status"), QStringLiteral("--porcelain")}, &porcelain));
    QCOMPARE(QString::fromUtf8(porcelain).trimmed(), expectedLine.trimmed());

    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY2(tree.ok(), qPrintable(tree.ok() ? QString() : tree.error().message));
    const Result<WorkTreeStatus> status = tree->status();
    QVERIFY(status.ok());
    QCOMPARE(status->isClean(), expectedLine.isEmpty());
    QCOMPARE(status->operation, QString());
    if (expectedLine.isEmpty())
        QCOMPARE(status->describe(), QStringList());
    else
        QCOMPARE(status->describe(), QStringList{expectedLine});
}

void tst_Packaging::openFromSubfolder()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeRepository(repo));
    QVERIFY(writeFile(repo + u"/src/deep/m.py", "pass\n"));
    QVERIFY(git(repo, {QStringLiteral("add"), QStringLiteral("-A")}));
    QVERIFY(git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("deep")}));

    const Result<GitWorkTree> tree = GitWorkTree::open(repo + u"/src/deep");
    QVERIFY(tree.ok());
    QCOMPARE(QFileInfo(tree->rootPath()).canonicalFilePath(), QFileInfo(repo).canonicalFilePath());
    QVERIFY(!tree->rootPath().endsWith(u'/'));
}

void tst_Packaging::openErrors()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const Result<GitWorkTree> plain = GitWorkTree::open(tmp.path());
    QVERIFY(!plain.ok());
    QCOMPARE(plain.error().code, QStringLiteral("not_a_repository"));
    QVERIFY(plain.error().message.contains(tmp.path()));

    const Result<GitWorkTree> missing = GitWorkTree::open(tmp.filePath(QStringLiteral("nope")));
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, QStringLiteral("not_found"));

    const QString bare = tmp.filePath(QStringLiteral("bare.git"));
    QVERIFY(QDir().mkpath(bare));
    QVERIFY(git(bare, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("--bare")}));
    const Result<GitWorkTree> bareTree = GitWorkTree::open(bare);
    QVERIFY(!bareTree.ok());
    QCOMPARE(bareTree.error().code, QStringLiteral("bare_repository"));
}

void tst_Packaging::mergeInProgress()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.path();
    QVERIFY(makeRepository(repo));
    // A merge that changes no file: only the merge state itself makes the tree dirty.
    QVERIFY(
        git(repo, {QStringLiteral("checkout"), QStringLiteral("-qb"), QStringLiteral("other")}));
    QVERIFY(git(repo,
                {QStringLiteral("commit"),
                 QStringLiteral("-q"),
                 QStringLiteral("--allow-empty"),
                 QStringLiteral("-m"),
                 QStringLiteral("empty")}));
    QVERIFY(git(repo, {QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}));
    QVERIFY(git(repo,
                {QStringLiteral("merge"),
                 QStringLiteral("--no-ff"),
                 QStringLiteral("--no-commit"),
                 QStringLiteral("other")}));
    QVERIFY(QFile::exists(repo + u"/.git/MERGE_HEAD"));

    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY(tree.ok());
    const Result<WorkTreeStatus> status = tree->status();
    QVERIFY(status.ok());
    QCOMPARE(status->changes.size(), 0);
    QCOMPARE(status->operation, QStringLiteral("merge"));
    QVERIFY(!status->isClean());

    const Result<PackageInfo> package =
        PackageBuilder(repo).build(tmp.filePath(QStringLiteral("p.tar.zst")));
    QVERIFY(!package.ok());
    QCOMPARE(package.error().code, QStringLiteral("dirty_tree"));
    QVERIFY2(package.error().message.contains(QStringLiteral("merge in progress")),
             qPrintable(package.error().message));
}

void tst_Packaging::conflictedMerge()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.path();
    QVERIFY(makeRepository(repo));
    QVERIFY(
        git(repo, {QStringLiteral("checkout"), QStringLiteral("-qb"), QStringLiteral("other")}));
    QVERIFY(writeFile(repo + u"/a.py", "print('other')\n"));
    QVERIFY(git(repo, {QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("other")}));
    QVERIFY(git(repo, {QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}));
    QVERIFY(writeFile(repo + u"/a.py", "print('main')\n"));
    QVERIFY(git(repo, {QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("main")}));
    QByteArray mergeOutput;
    QCOMPARE(gitExitCode(repo, {QStringLiteral("merge"), QStringLiteral("other")}, &mergeOutput),
             1);
    QVERIFY(mergeOutput.contains("CONFLICT"));

    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY(tree.ok());
    const Result<WorkTreeStatus> status = tree->status();
    QVERIFY(status.ok());
    QCOMPARE(status->operation, QStringLiteral("merge"));
    QCOMPARE(status->describe(),
             (QStringList{QStringLiteral("(merge in progress)"), QStringLiteral("UU a.py")}));
}

void tst_Packaging::dirtyTreeRefused()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeRepository(repo));
    QVERIFY(writeFile(repo + u"/new.txt", "new\n"));
    QVERIFY(writeFile(repo + u"/a.py", "print('edited')\n"));

    const QString archive = tmp.filePath(QStringLiteral("p.tar.zst"));
    const Result<PackageInfo> package = PackageBuilder(repo).build(archive);
    QVERIFY(!package.ok());
    QCOMPARE(package.error().code, QStringLiteral("dirty_tree"));
    const QString message = package.error().message;
    QVERIFY2(message.contains(QStringLiteral(" M a.py")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("?? new.txt")), qPrintable(message));
    QVERIFY2(message.contains(
                 QStringLiteral("commit or stash your changes (git stash -u), then submit again")),
             qPrintable(message));
    QVERIFY(!QFile::exists(archive));
}

void tst_Packaging::emptyRepositoryRefused()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    QVERIFY(git(tmp.path(), {QStringLiteral("init"), QStringLiteral("-q")}));
    QVERIFY(writeFile(tmp.filePath(QStringLiteral("main.py")), "pass\n"));
    const QString archive = m_home.filePath(QStringLiteral("empty.tar.zst"));
    const Result<PackageInfo> package = PackageBuilder(tmp.path()).build(archive);
    QVERIFY(!package.ok());
    QCOMPARE(package.error().code, QStringLiteral("empty_repository"));
    QVERIFY(package.error().message.contains(QStringLiteral("no commits yet")));
    QVERIFY(!QFile::exists(archive));
}

void tst_Packaging::packageContents()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeRepository(repo));
    const QByteArray longDir = QByteArray("very-long-folder-name-").repeated(6); // > 100 bytes
    const QString longPath = QString::fromUtf8(longDir) + u"/weights.txt";
    QVERIFY(writeFile(repo + u"/run.sh", "#!/bin/sh\npython a.py\n"));
    QVERIFY(QFile::setPermissions(repo + u"/run.sh",
                                  QFile::permissions(repo + u"/run.sh") | QFile::ExeOwner));
    QVERIFY(writeFile(repo + u"/src/model/net.py", "class Net: pass\n"));
    QVERIFY(writeFile(repo + u"/données.txt", "non-ascii name\n"));
    QVERIFY(writeFile(repo + u'/' + longPath, "0.5\n"));
    QVERIFY(::symlink("a.py", QFile::encodeName(repo + u"/link.py").constData()) == 0);
    QVERIFY(::symlink("/etc/passwd", QFile::encodeName(repo + u"/abs").constData()) == 0);
    QVERIFY(git(repo, {QStringLiteral("add"), QStringLiteral("-A")}));
    QVERIFY(git(repo,
                {QStringLiteral("commit"),
                 QStringLiteral("-q"),
                 QStringLiteral("-m"),
                 QStringLiteral("Add the model\n\nLonger text.")}));
    // Committed content wins over whatever the working folder holds besides it.
    QVERIFY(writeFile(repo + u"/secret.log", "ignored, never packaged\n"));

    QByteArray head;
    QVERIFY(git(repo, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, &head));
    QByteArray commitTime;
    QVERIFY(git(repo,
                {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%ct")},
                &commitTime));

    const QString archive = tmp.filePath(QStringLiteral("package.tar.zst"));
    const Result<PackageInfo> package = PackageBuilder(repo + u"/src").build(archive);
    QVERIFY2(package.ok(), qPrintable(package.ok() ? QString() : package.error().message));
    QCOMPARE(package->archivePath, archive);
    QCOMPARE(package->commitId, QString::fromLatin1(head.trimmed()));
    QCOMPARE(package->commitSummary, QStringLiteral("Add the model"));
    QCOMPARE(package->fileCount, 7); // .gitignore a.py données.txt link.py long run.sh net.py
    QCOMPARE(package->size, QFileInfo(archive).size());
    QCOMPARE(package->sha256, sha256OfFile(archive).value());
    QCOMPARE(package->warnings.size(), 1);
    QVERIFY2(package->warnings.first().contains(QStringLiteral("abs")),
             qPrintable(package->warnings.first()));

    const QList<PackagedEntry> entries = readPackage(archive);
    QByteArrayList paths;
    for (const PackagedEntry &e : entries) {
        paths.append(e.path);
        QCOMPARE(e.uid, qint64(0));
        QCOMPARE(e.gid, qint64(0));
        QCOMPARE(e.mtime, commitTime.trimmed().toLongLong());
    }
    const QByteArrayList expected{".gitignore",
                                  "a.py",
                                  "données.txt",
                                  "link.py",
                                  "run.sh",
                                  "src/",
                                  "src/model/",
                                  "src/model/net.py",
                                  longDir + '/',
                                  longDir + "/weights.txt"};
    QCOMPARE(paths, expected);
    for (const PackagedEntry &e : entries) {
        if (e.path == "a.py") {
            QCOMPARE(e.type, unsigned(AE_IFREG));
            QCOMPARE(e.perm, 0644);
            QCOMPARE(e.data, QByteArray("print('a')\n"));
        } else if (e.path == "run.sh") {
            QCOMPARE(e.perm, 0755);
            QCOMPARE(e.data, QByteArray("#!/bin/sh\npython a.py\n"));
        } else if (e.path == "link.py") {
            QCOMPARE(e.type, unsigned(AE_IFLNK));
            QCOMPARE(e.symlink, QByteArray("a.py"));
        } else if (e.path == "src/") {
            QCOMPARE(e.type, unsigned(AE_IFDIR));
        }
    }

    // The package extracts cleanly with our own extractor, modes and links intact.
    const QString out = tmp.filePath(QStringLiteral("out"));
    const Result<ExtractionInfo> extracted = ArchiveExtractor().extract(archive, out);
    QVERIFY2(extracted.ok(), qPrintable(extracted.ok() ? QString() : extracted.error().message));
    QVERIFY(modeOf(out + u"/run.sh") & S_IXUSR);
    QVERIFY(!(modeOf(out + u"/a.py") & S_IXUSR));
    QVERIFY(S_ISLNK(modeOf(out + u"/link.py")));
    QVERIFY(QFile::exists(out + u"/données.txt"));
    QVERIFY(QFile::exists(out + u'/' + longPath));
    QVERIFY(!QFile::exists(out + u"/secret.log"));
}

void tst_Packaging::reproducible()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeRepository(repo));
    QVERIFY(writeFile(repo + u"/src/b.py", QByteArray("x = 1\n").repeated(50000)));
    QVERIFY(git(repo, {QStringLiteral("add"), QStringLiteral("-A")}));
    QVERIFY(git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("b")}));

    const Result<PackageInfo> first =
        PackageBuilder(repo).build(tmp.filePath(QStringLiteral("1.tar.zst")));
    QVERIFY(first.ok());
    const Result<PackageInfo> second =
        PackageBuilder(repo).build(tmp.filePath(QStringLiteral("2.tar.zst")));
    QVERIFY(second.ok());
    QCOMPARE(second->sha256, first->sha256);

    // Another checkout of the same commit, made at another time, gives the same bytes.
    const QString clone = tmp.filePath(QStringLiteral("clone"));
    QVERIFY(git(tmp.path(), {QStringLiteral("clone"), QStringLiteral("-q"), repo, clone}));
    const Result<PackageInfo> cloned =
        PackageBuilder(clone).build(tmp.filePath(QStringLiteral("3.tar.zst")));
    QVERIFY(cloned.ok());
    QCOMPARE(cloned->sha256, first->sha256);
    QCOMPARE(cloned->commitId, first->commitId);

    // A new commit gives a new package.
    QVERIFY(writeFile(repo + u"/a.py", "print('v2')\n"));
    QVERIFY(git(repo, {QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("v2")}));
    const Result<PackageInfo> next =
        PackageBuilder(repo).build(tmp.filePath(QStringLiteral("4.tar.zst")));
    QVERIFY(next.ok());
    QVERIFY(next->sha256 != first->sha256);
    QVERIFY(next->commitId != first->commitId);
    QCOMPARE(next->commitSummary, QStringLiteral("v2"));
    bool found = false;
    for (const PackagedEntry &e : readPackage(next->archivePath)) {
        if (e.path == "a.py") {
            QCOMPARE(e.data, QByteArray("print('v2')\n"));
            found = true;
        }
    }
    QVERIFY(found);
}

void tst_Packaging::submoduleSkipped()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString lib = tmp.filePath(QStringLiteral("lib"));
    QVERIFY(makeRepository(lib));
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeRepository(repo));
    QVERIFY(git(repo,
                {QStringLiteral("-c"),
                 QStringLiteral("protocol.file.allow=always"),
                 QStringLiteral("submodule"),
                 QStringLiteral("add"),
                 QStringLiteral("-q"),
                 lib,
                 QStringLiteral("libs/lib")}));
    QVERIFY(git(
        repo, {QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("Add submodule")}));

    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY(tree.ok());
    const Result<WorkTreeStatus> status = tree->status();
    QVERIFY(status.ok());
    QVERIFY2(status->isClean(), qPrintable(status->describe().join(u'\n')));

    const Result<PackageInfo> package =
        PackageBuilder(repo).build(tmp.filePath(QStringLiteral("p.tar.zst")));
    QVERIFY2(package.ok(), qPrintable(package.ok() ? QString() : package.error().message));
    QCOMPARE(package->warnings.size(), 1);
    QVERIFY2(package->warnings.first().contains(QStringLiteral("submodule libs/lib")),
             qPrintable(package->warnings.first()));
    QByteArrayList paths;
    for (const PackagedEntry &e : readPackage(package->archivePath))
        paths.append(e.path);
    QCOMPARE(paths, (QByteArrayList{".gitignore", ".gitmodules", "a.py", "libs/"}));
    QCOMPARE(package->fileCount, 3);
}

void tst_Packaging::relativePath()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeMonorepo(repo));
    const Result<GitWorkTree> tree = GitWorkTree::open(repo + u"/projects/mnist");
    QVERIFY(tree.ok());
    QCOMPARE(tree->relativePath(repo).value(), QString());
    QCOMPARE(tree->relativePath(repo + u"/projects/mnist").value(),
             QStringLiteral("projects/mnist"));
    QCOMPARE(tree->relativePath(repo + u"/projects/mnist/lib/..").value(),
             QStringLiteral("projects/mnist"));
    // The same folder through a link names the same place.
    QVERIFY(::symlink(QFile::encodeName(repo + u"/projects").constData(),
                      QFile::encodeName(tmp.filePath(QStringLiteral("p"))).constData()) == 0);
    QCOMPARE(tree->relativePath(tmp.filePath(QStringLiteral("p/mnist"))).value(),
             QStringLiteral("projects/mnist"));

    for (const QString &outside : QStringList{repo + u"/.git", repo + u"/.git/refs", tmp.path()}) {
        const Result<QString> relative = tree->relativePath(outside);
        QVERIFY2(!relative.ok(), qPrintable(outside));
        QCOMPARE(relative.error().code, QStringLiteral("outside_work_tree"));
    }
    QCOMPARE(tree->relativePath(repo + u"/nope").error().code, QStringLiteral("not_found"));
}

void tst_Packaging::folderOnlyPackage()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeMonorepo(repo));

    const QString archive = tmp.filePath(QStringLiteral("p.tar.zst"));
    const Result<PackageInfo> package =
        PackageBuilder(repo + u"/projects/mnist", PackageBuilder::Scope::FolderOnly).build(archive);
    QVERIFY2(package.ok(), qPrintable(package.ok() ? QString() : package.error().message));
    QCOMPARE(package->folder, QStringLiteral("projects/mnist"));
    QByteArrayList paths;
    for (const PackagedEntry &e : readPackage(archive))
        paths.append(e.path);
    // Paths start at the folder; nothing above it goes, not even through a link.
    QCOMPARE(paths, (QByteArrayList{"lib/", "lib/m.py", "main.py"}));
    QCOMPARE(package->fileCount, 2);
    QCOMPARE(package->warnings.size(), 1);
    QVERIFY2(package->warnings.first().contains(QStringLiteral("outside.py")),
             qPrintable(package->warnings.first()));

    // The whole repository, as before, when that is what is asked for.
    const Result<PackageInfo> whole =
        PackageBuilder(repo + u"/projects/mnist").build(tmp.filePath(QStringLiteral("w.tar.zst")));
    QVERIFY(whole.ok());
    QCOMPARE(whole->folder, QString());
    QVERIFY(whole->fileCount > package->fileCount);

    // A folder that was never committed has nothing to package.
    QVERIFY(writeFile(repo + u"/projects/new/main.py", "pass\n"));
    const Result<PackageInfo> uncommitted =
        PackageBuilder(repo + u"/projects/new", PackageBuilder::Scope::FolderOnly)
            .build(tmp.filePath(QStringLiteral("n.tar.zst")));
    QVERIFY(!uncommitted.ok());
    QCOMPARE(uncommitted.error().code, QStringLiteral("not_committed"));
    QVERIFY2(uncommitted.error().message.contains(QStringLiteral("projects/new")),
             qPrintable(uncommitted.error().message));
}

void tst_Packaging::folderOnlyDirtiness_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("blocks");

    QTest::newRow("edit outside") << QStringLiteral("a.py") << false;
    QTest::newRow("new file outside") << QStringLiteral("tools/new.sh") << false;
    QTest::newRow("sibling with the same prefix")
        << QStringLiteral("projects/mnist2/x.py") << false;
    QTest::newRow("edit inside") << QStringLiteral("projects/mnist/main.py") << true;
    QTest::newRow("new file deeper inside") << QStringLiteral("projects/mnist/lib/n.py") << true;
    QTest::newRow("ignored inside") << QStringLiteral("projects/mnist/train.log") << false;
}

void tst_Packaging::folderOnlyDirtiness()
{
    QFETCH(QString, file);
    QFETCH(bool, blocks);

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeMonorepo(repo));
    QVERIFY(writeFile(repo + u'/' + file, "changed = True\n"));

    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY(tree.ok());
    const Result<WorkTreeStatus> status = tree->status(QStringLiteral("projects/mnist"));
    QVERIFY(status.ok());
    QCOMPARE(!status->isClean(), blocks);

    const Result<PackageInfo> package =
        PackageBuilder(repo + u"/projects/mnist", PackageBuilder::Scope::FolderOnly)
            .build(tmp.filePath(QStringLiteral("p.tar.zst")));
    QCOMPARE(!package.ok(), blocks);
    if (blocks) {
        QCOMPARE(package.error().code, QStringLiteral("dirty_tree"));
        QVERIFY2(package.error().message.contains(file), qPrintable(package.error().message));
    }
}

void tst_Packaging::headTreeReadsCommittedFiles()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString repo = tmp.filePath(QStringLiteral("repo"));
    QVERIFY(makeMonorepo(repo));
    // The working copy may say anything: HEAD is what is read.
    QVERIFY(writeFile(repo + u"/projects/mnist/main.py", "edited\n"));
    Result<GitWorkTree> tree = GitWorkTree::open(repo);
    QVERIFY(tree.ok());
    const Result<GitHeadTree> head = GitHeadTree::open(*tree, QStringLiteral("projects/mnist"));
    QVERIFY(head.ok());
    QCOMPARE(head->commitSummary(), QStringLiteral("mnist"));

    const auto mainPy = head->readFile(QStringLiteral("main.py"), 1 << 20);
    QVERIFY(mainPy.ok() && mainPy->has_value());
    QCOMPARE(**mainPy, QByteArray("def main(dataset_dir, model_output_dir):\n    pass\n"));
    QCOMPARE(head->readFile(QStringLiteral("main.py"), 3).value().value(), QByteArray("def"));
    QCOMPARE(head->readFile(QStringLiteral("lib/m.py"), 100).value().value(),
             QByteArray("x = 1\n"));
    QVERIFY(!head->readFile(QStringLiteral("a.py"), 100).value().has_value()); // above the folder
    QVERIFY(!head->readFile(QStringLiteral("none.py"), 100).value().has_value());
    QCOMPARE(head->readFile(QStringLiteral("lib"), 100).error().code, QStringLiteral("not_a_file"));
    QCOMPARE(head->readFile(QStringLiteral("outside.py"), 100).error().code,
             QStringLiteral("not_a_file"));

    const Result<GitHeadTree> missing = GitHeadTree::open(*tree, QStringLiteral("projects/none"));
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, QStringLiteral("not_committed"));
}

QTEST_GUILESS_MAIN(tst_Packaging)
#include "tst_packaging.moc"
