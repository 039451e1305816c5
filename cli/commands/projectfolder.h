#pragma once

#include "core/result.h"
#include "packaging/gitworktree.h"
#include "packaging/packagebuilder.h"

#include <QCoreApplication>
#include <QString>

namespace ddl::cli {

// The code that `ddlcli submit` sends, as the DDL seed defines it: the folder ddlcli runs in and
// its subfolders, as committed at HEAD of the git repository around it; nothing above it.
class ProjectFolder
{
    Q_DECLARE_TR_FUNCTIONS(ProjectFolder)
public:
    // The project in folder. Errors: "not_a_repository" (with what to do), and the errors of
    // GitWorkTree::open and GitWorkTree::relativePath.
    static Result<ProjectFolder> open(const QString &folder);

    QString folder() const { return m_folder; } // absolute
    QString rootPath() const { return m_tree.rootPath(); }
    QString subfolder() const { return m_subfolder; } // relative to the root; "" for the root

    // "dirty_tree" when the folder has changes that are not committed (changes elsewhere in the
    // repository are not sent, so they do not count). A dataset folder among them gets the hint
    // to ignore it in git.
    Status checkClean(const QString &datasetFolder) const;

    // "no_main_py" when the committed folder has no main.py, "no_main_function" when its main.py
    // has no main(dataset_dir, model_output_dir); both say what to do.
    Status checkMainFunction() const;

    // The package of the folder at HEAD.
    Result<PackageInfo> package(const QString &archivePath) const;

private:
    ProjectFolder(GitWorkTree tree, QString folder, QString subfolder);

    GitWorkTree m_tree;
    QString m_folder;
    QString m_subfolder;
};

} // namespace ddl::cli
