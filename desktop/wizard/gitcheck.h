#pragma once

#include "core/error.h"

#include <QCoreApplication>
#include <QList>
#include <QPair>
#include <QStringList>

namespace ddl::desktop {

// What the wizard learns about a project folder before it submits: is the working tree clean,
// which commit would be packaged, and what the package would hold.
struct GitCheckResult
{
    Error error;              // code empty when the check ran
    QString root;             // the repository's root
    QStringList dirty;        // porcelain lines; empty when clean
    QString commitId;
    QString commitSummary;
    int fileCount = 0;
    qint64 packageBytes = 0;  // the tar.zst that would be uploaded
    qint64 treeBytes = 0;     // the files of HEAD, unpacked
    QList<QPair<QString, qint64>> largest; // the biggest files of HEAD, biggest first

    bool isClean() const { return error.code.isEmpty() && dirty.isEmpty(); }
};

// Runs the check; slow (it packages the tree), so callers run it off the GUI thread.
class GitCheck
{
    Q_DECLARE_TR_FUNCTIONS(GitCheck)
public:
    static GitCheckResult run(const QString &folder);
    static constexpr int LargestShown = 8;
};

} // namespace ddl::desktop
