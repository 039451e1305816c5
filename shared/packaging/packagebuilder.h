#pragma once

#include <QList>
#include <QPair>

#include "core/result.h"

#include <QString>
#include <QStringList>

namespace ddl {

// A code package made from the commit at HEAD.
struct PackageInfo
{
    QString archivePath;
    QString sha256;        // lowercase hex of the archive file
    qint64 size = 0;       // bytes of the archive file
    QString folder;        // the packaged folder relative to the repository root ("" for all)
    QString commitId;      // full hex id of the packaged commit
    QString commitSummary; // first line of its message
    int fileCount = 0;     // regular files and symlinks in the archive
    qint64 contentBytes = 0; // the files' bytes before compression
    // The largest files packaged (path, bytes), largest first, at most LargestFilesKept.
    QList<QPair<QString, qint64>> largestFiles;
    static constexpr int LargestFilesKept = 5;
    QStringList warnings;  // what was left out and why (submodules, escaping symlinks)
};

// Packages the tree of HEAD of a git repository (never the working folder) into a reproducible
// tar.zst: paths in git order, mtime = commit time, uid/gid 0, modes 0644/0755, symlinks kept,
// submodules skipped with a warning. The same commit always gives the same bytes.
class PackageBuilder
{
public:
    enum class Scope {
        WholeRepository, // the whole tree of HEAD, whatever folder of it was given
        FolderOnly,      // only the given folder's subtree, its paths relative to that folder
    };

    // folder is the repository root or any folder inside its working tree.
    explicit PackageBuilder(const QString &folder, Scope scope = Scope::WholeRepository);

    // Writes the package to archivePath (replaced atomically). Refuses a dirty working tree with
    // "dirty_tree" (with Scope::FolderOnly, only changes inside the folder count), a repository
    // without commits with "empty_repository", a folder that HEAD lacks with "not_committed".
    Result<PackageInfo> build(const QString &archivePath) const;

private:
    QString m_folder;
    Scope m_scope;
};

} // namespace ddl
