#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>

struct git_repository;
struct git_tree;

namespace ddl {

class GitWorkTree;

// The committed tree at HEAD of a work tree, or of one folder in it: what a package holds.
class GitHeadTree
{
public:
    // folder is relative to the repository root ("" for the root, "projects/mnist" otherwise).
    // Errors: "empty_repository" (no commit yet), "not_committed" (folder is not a folder of
    // the commit at HEAD), "git_error".
    static Result<GitHeadTree> open(const GitWorkTree &workTree, const QString &folder = {});

    GitHeadTree(GitHeadTree &&other) noexcept;
    GitHeadTree &operator=(GitHeadTree &&other) noexcept;
    GitHeadTree(const GitHeadTree &) = delete;
    GitHeadTree &operator=(const GitHeadTree &) = delete;
    ~GitHeadTree();

    QString commitId() const { return m_commitId; }           // full hex id
    QString commitSummary() const { return m_commitSummary; } // first line of its message
    qint64 commitTime() const { return m_commitTime; }        // seconds since the epoch
    QString folder() const { return m_folder; }

    // The committed content of a regular file of the tree (path relative to the folder), at most
    // maxBytes of it; std::nullopt when there is no such file. A symlink or folder of that name
    // is "not_a_file".
    Result<std::optional<QByteArray>> readFile(const QString &path, qint64 maxBytes) const;

    // The libgit2 tree, owned by this object; for the rest of shared/packaging.
    const git_tree *tree() const { return m_tree; }

private:
    GitHeadTree() = default;

    git_tree *m_tree = nullptr;
    git_repository *m_repository = nullptr; // owned by the GitWorkTree, which outlives this
    QString m_commitId;
    QString m_commitSummary;
    qint64 m_commitTime = 0;
    QString m_folder;
    QString m_rootPath;
};

} // namespace ddl
