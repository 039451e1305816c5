#pragma once

#include "core/result.h"

#include <QString>
#include <QStringList>

namespace ddl {

// A folder packed into a tar.zst.
struct ArchiveInfo
{
    QString archivePath;
    QString sha256;        // lowercase hex of the archive file
    qint64 size = 0;       // bytes of the archive file
    int fileCount = 0;     // regular files and symlinks in the archive
    qint64 totalBytes = 0; // sum of the sizes of the regular files
    QStringList warnings;  // what was left out and why
};

// Packs a folder into a reproducible tar.zst (datasets, outputs): entries sorted by path,
// mtime 0, uid/gid 0, permission bits kept; symlinks kept only when they stay inside the
// folder, special files skipped, both with a warning. Files stream through in 64 KiB reads.
class DirectoryArchiver
{
public:
    // Writes folder's contents (not the folder itself) to archivePath, which must lie outside it.
    Result<ArchiveInfo> archive(const QString &folder, const QString &archivePath) const;

    // Entries with one of these names, at any depth, are left out (".git" of a code folder).
    void setSkippedNames(const QStringList &names) { m_skippedNames = names; }

private:
    QStringList m_skippedNames;
};

} // namespace ddl
