#pragma once

#include "core/result.h"

#include <QList>
#include <QString>
#include <QStringList>

struct git_repository;

namespace ddl {

// One changed path as `git status --porcelain` shows it: a two-letter code and the path.
struct GitFileChange
{
    QString code; // "XY": index then working tree, e.g. " M", "A ", "??", "UU", "R "
    QString path; // relative to the repository root; "old -> new" for a rename
    QString toPorcelain() const { return code + u' ' + path; }
};

// The state of a working tree: the changed paths (ignored files excluded) and any operation in
// progress (merge, rebase, cherry-pick, ...), either of which makes it dirty.
struct WorkTreeStatus
{
    QString operation; // empty, or "merge", "revert", "cherry-pick", "bisect", "rebase", ...
    QList<GitFileChange> changes;

    bool isClean() const { return operation.isEmpty() && changes.isEmpty(); }
    // The changes as porcelain lines, preceded by the operation when there is one.
    QStringList describe() const;
};

// An open git repository with a working tree, found from any folder inside it.
class GitWorkTree
{
public:
    // Opens the repository whose working tree holds folder (searching upward like git does).
    // Errors: "not_found" (no such folder), "not_a_repository", "bare_repository", "git_error".
    static Result<GitWorkTree> open(const QString &folder);

    GitWorkTree(GitWorkTree &&other) noexcept;
    GitWorkTree &operator=(GitWorkTree &&other) noexcept;
    GitWorkTree(const GitWorkTree &) = delete;
    GitWorkTree &operator=(const GitWorkTree &) = delete;
    ~GitWorkTree();

    // The root of the working tree, absolute, without a trailing slash.
    QString rootPath() const { return m_rootPath; }

    // folder (absolute, or relative to the current one) as a path relative to the root: "" for
    // the root itself, "projects/mnist" below it. Links are resolved first. Errors:
    // "outside_work_tree" for a folder outside the working tree or inside .git.
    Result<QString> relativePath(const QString &folder) const;

    // What `git status --porcelain` would list (untracked files included, ignored ones not),
    // plus the operation in progress. With a subfolder (relative to the root), only the changes
    // inside it count; an operation in progress always does.
    Result<WorkTreeStatus> status(const QString &subfolder = {}) const;

    // The libgit2 handle, owned by this object; for the rest of shared/packaging.
    git_repository *repository() const { return m_repository; }

private:
    GitWorkTree(git_repository *repository, QString rootPath);

    git_repository *m_repository = nullptr;
    QString m_rootPath;
};

} // namespace ddl
