#include "gitrepo.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

bool git(const QString &repo, const QStringList &args)
{
    QProcess process;
    process.setWorkingDirectory(repo);
    process.start(QStringLiteral("git"),
                  QStringList{QStringLiteral("-c"),
                              QStringLiteral("user.name=DDL Test"),
                              QStringLiteral("-c"),
                              QStringLiteral("user.email=test@example.org")} +
                      args);
    return process.waitForFinished(30000) && process.exitCode() == 0;
}

static bool commitAll(const QString &repo, const QString &message)
{
    return git(repo, {QStringLiteral("init"), QStringLiteral("-q")}) &&
           git(repo, {QStringLiteral("add"), QStringLiteral("-A")}) &&
           git(repo, {QStringLiteral("commit"), QStringLiteral("-qm"), message});
}

static bool copyTree(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    const QDir source(from);
    for (const QFileInfo &entry :
         source.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)) {
        const QString target = QDir(to).filePath(entry.fileName());
        if (entry.isDir()) {
            if (entry.fileName() == QLatin1String("__pycache__"))
                continue;
            if (!copyTree(entry.filePath(), target))
                return false;
        } else if (!QFile::copy(entry.filePath(), target)) {
            return false;
        }
    }
    return true;
}

QString makeGitRepo(const QString &repo, const QMap<QString, QByteArray> &files)
{
    if (!QDir().mkpath(repo))
        return {};
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QFile file(QDir(repo).filePath(it.key()));
        if (!QDir().mkpath(QFileInfo(file).absolutePath()) || !file.open(QIODevice::WriteOnly) ||
            file.write(it.value()) != it.value().size())
            return {};
    }
    return commitAll(repo, QStringLiteral("jobs")) ? repo : QString();
}

QString makeExampleGitRepo(const QString &repo, const QString &exampleFolder)
{
    const QString example = QDir(qEnvironmentVariable("DDL_SOURCE_DIR"))
                                .filePath(QStringLiteral("examples/") + exampleFolder);
    if (!copyTree(example, repo))
        return {};
    return commitAll(repo, QStringLiteral("example")) ? repo : QString();
}
