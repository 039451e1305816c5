#include "projectfolder.h"

#include "packaging/githeadtree.h"
#include "packaging/mainfunctioncheck.h"

#include <QDir>
#include <QFileInfo>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

// More than any main.py a person writes; only its text is read, for `def main(`.
static constexpr qint64 MaxMainPyBytes = 4 * 1024 * 1024;

ProjectFolder::ProjectFolder(GitWorkTree tree, QString folder, QString subfolder)
    : m_tree(std::move(tree))
    , m_folder(std::move(folder))
    , m_subfolder(std::move(subfolder))
{
}

Result<ProjectFolder> ProjectFolder::open(const QString &folder)
{
    const QString absolute = QFileInfo(folder).absoluteFilePath();
    Result<GitWorkTree> tree = GitWorkTree::open(absolute);
    if (!tree) {
        if (!tree.error().is(ErrorCode::NotARepository))
            return tree.error();
        return Error::make(ErrorCode::NotARepository,
                           tr("%1 is not inside a git repository. ddlcli submit sends the folder "
                              "it runs in, with its subfolders, as last committed: run it in the "
                              "folder that holds main.py; if that folder is not in a git "
                              "repository yet, run git init, git add -A and git commit there "
                              "first")
                               .arg(absolute));
    }
    Result<QString> subfolder = tree->relativePath(absolute);
    if (!subfolder) {
        if (!subfolder.error().is(ErrorCode::OutsideWorkTree))
            return subfolder.error();
        return Error::make(ErrorCode::OutsideWorkTree,
                           tr("%1 is inside the .git folder of %2; run ddlcli in the folder that "
                              "holds main.py")
                               .arg(absolute, tree->rootPath()));
    }
    return ProjectFolder(std::move(*tree), absolute, *subfolder);
}

Status ProjectFolder::checkClean(const QString &datasetFolder) const
{
    Result<WorkTreeStatus> status = m_tree.status(m_subfolder);
    if (!status)
        return status.error();
    if (status->isClean())
        return Ok{};
    QString hint = tr("commit or stash them (git stash -u), then submit again");
    // A dataset inside the project is sent on its own and belongs in .gitignore.
    const QString root = rootPath();
    if (!datasetFolder.isEmpty() && datasetFolder.startsWith(root + u'/')) {
        const QString relative = QDir(root).relativeFilePath(datasetFolder);
        for (const GitFileChange &change : status->changes) {
            if (change.path == relative || change.path.startsWith(relative + u'/')) {
                hint = tr("commit or stash them (git stash -u), and add the dataset folder %1/ "
                          "to .gitignore; then submit again")
                           .arg(relative);
                break;
            }
        }
    }
    QStringList lines;
    for (const QString &line : status->describe())
        lines << u"  "_s + line;
    const QString where = m_subfolder.isEmpty()
                              ? tr("the working tree of %1").arg(root)
                              : tr("the folder %1 (in the git repository %2)").arg(m_folder, root);
    return Error::make(
        ErrorCode::DirtyTree,
        tr("%1 has changes that are not committed; %2:\n%3").arg(where, hint, lines.join(u'\n')));
}

Status ProjectFolder::checkMainFunction() const
{
    Result<GitHeadTree> head = GitHeadTree::open(m_tree, m_subfolder);
    if (!head)
        return head.error();
    Result<std::optional<QByteArray>> mainPy = head->readFile(u"main.py"_s, MaxMainPyBytes);
    if (!mainPy) {
        if (!mainPy.error().is(ErrorCode::NotAFile))
            return mainPy.error();
        return Error::make(ErrorCode::NoMainPy,
                           tr("%1 in %2: DDL runs the file main.py itself; commit main.py as a "
                              "file, then submit again")
                               .arg(mainPy.error().message, m_folder));
    }
    if (!*mainPy) {
        return Error::make(ErrorCode::NoMainPy,
                           tr("there is no main.py in %1 (as committed at %2). ddlcli submit "
                              "sends the folder it runs in, and DDL calls main(dataset_dir, "
                              "model_output_dir) in its main.py: run ddlcli in the folder that "
                              "holds main.py, or add and commit one there")
                               .arg(m_folder, head->commitId().left(12)));
    }
    if (Status defined = MainFunctionCheck::check(**mainPy); !defined) {
        return defined.error().withMessage(tr("in %1: %2").arg(m_folder, defined.error().message));
    }
    return Ok{};
}

Result<PackageInfo> ProjectFolder::package(const QString &archivePath) const
{
    return PackageBuilder(m_folder, PackageBuilder::Scope::FolderOnly).build(archivePath);
}

} // namespace ddl::cli
