#include "archivepathcheck.h"

namespace ddl::archivepath {

QByteArrayList components(const QByteArray &path)
{
    QByteArrayList result;
    for (const QByteArray &part : path.split('/')) {
        if (part.isEmpty() || part == ".")
            continue;
        result.append(part);
    }
    return result;
}

QString entryPathProblem(const QByteArray &path)
{
    if (path.isEmpty())
        return QStringLiteral("empty path");
    if (path.startsWith('/'))
        return QStringLiteral("absolute path");
    for (const QByteArray &part : components(path)) {
        if (part == "..")
            return QStringLiteral("path contains a '..' component");
    }
    return {};
}

QString symlinkTargetProblem(const QByteArray &entryPath, const QByteArray &target)
{
    if (target.isEmpty())
        return QStringLiteral("symlink has an empty target");
    if (target.startsWith('/'))
        return QStringLiteral("symlink target '%1' is absolute").arg(QString::fromUtf8(target));

    // The link lives in the folder of its entry: that many levels may be climbed.
    qsizetype depth = components(entryPath).size() - 1;
    bool seenName = false;
    for (const QByteArray &part : components(target)) {
        if (part == "..") {
            if (seenName)
                return QStringLiteral("symlink target '%1' has '..' after a name")
                    .arg(QString::fromUtf8(target));
            if (--depth < 0)
                return QStringLiteral("symlink target '%1' points outside the archive")
                    .arg(QString::fromUtf8(target));
        } else {
            seenName = true;
        }
    }
    return {};
}

} // namespace ddl::archivepath
