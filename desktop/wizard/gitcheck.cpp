#include "gitcheck.h"

#include "packaging/gitworktree.h"
#include "packaging/packagebuilder.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

// The sizes of HEAD's files, from git itself where it is installed (the preview only; the
// package is made by libgit2 either way).
static void listTree(const QString &root, GitCheckResult &result)
{
    QProcess git;
    git.setWorkingDirectory(root);
    git.start(u"git"_s, {u"ls-tree"_s, u"-r"_s, u"-l"_s, u"-z"_s, u"HEAD"_s});
    if (!git.waitForFinished(20000) || git.exitCode() != 0)
        return;
    QList<QPair<QString, qint64>> files;
    for (const QByteArray &entry : git.readAllStandardOutput().split('\0')) {
        // "<mode> <type> <object> <size>\t<path>"
        const qsizetype tab = entry.indexOf('\t');
        if (tab < 0)
            continue;
        const QList<QByteArray> fields = entry.left(tab).simplified().split(' ');
        if (fields.size() < 4 || fields.at(1) != "blob")
            continue;
        const qint64 size = fields.at(3).toLongLong();
        files.append({QString::fromUtf8(entry.mid(tab + 1)), size});
        result.treeBytes += size;
    }
    std::sort(files.begin(), files.end(),
              [](const auto &a, const auto &b) { return a.second > b.second; });
    result.largest = files.mid(0, GitCheck::LargestShown);
}

GitCheckResult GitCheck::run(const QString &folder)
{
    GitCheckResult result;
    Result<GitWorkTree> tree = GitWorkTree::open(folder);
    if (!tree) {
        result.error = tree.error();
        if (tree.error().is(ErrorCode::NotARepository))
            result.error.message = tr("%1 is not in a git repository. DDL packages the code "
                                      "of the last commit: run git init, add and commit your "
                                      "code, then check again.").arg(folder);
        return result;
    }
    result.root = tree->rootPath();
    Result<WorkTreeStatus> status = tree->status();
    if (!status) {
        result.error = status.error();
        return result;
    }
    if (!status->isClean()) {
        result.dirty = status->describe();
        return result;
    }
    QTemporaryDir scratch;
    Result<PackageInfo> package = PackageBuilder(result.root).build(
        scratch.filePath(u"preview.tar.zst"_s));
    if (!package) {
        result.error = package.error();
        return result;
    }
    result.commitId = package->commitId;
    result.commitSummary = package->commitSummary;
    result.fileCount = package->fileCount;
    result.packageBytes = package->size;
    listTree(result.root, result);
    return result;
}

} // namespace ddl::desktop
