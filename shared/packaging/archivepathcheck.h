#pragma once

#include <QByteArray>
#include <QByteArrayList>
#include <QString>

namespace ddl::archivepath {

// The rules every archive of DDL follows, shared by the writers (which skip what breaks them)
// and the extractor (which refuses it), so that whatever we write we can also extract.

// Splits a '/'-separated entry path into its components, dropping empty and "." ones.
QByteArrayList components(const QByteArray &path);

// Why an entry path is unsafe ("absolute path", "'..' component"), or an empty string when it
// is a relative path that stays below the archive root.
QString entryPathProblem(const QByteArray &path);

// Why a symlink at entryPath with this target could point outside the archive root, or an empty
// string when it stays inside. Allowed: relative targets whose ".." components all come first
// and never climb above the root ("../lib/x.py"). Refused: absolute targets, targets climbing
// above the root, and ".." after a name ("a/../b"), which a symlink named "a" could redirect.
QString symlinkTargetProblem(const QByteArray &entryPath, const QByteArray &target);

} // namespace ddl::archivepath
