// The parts of the sandbox seam that do not depend on the platform; sandbox_linux.cpp and
// sandbox_unsupported.cpp hold the rest.
#include "sandbox.h"

#include <QDir>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

QString Sandbox::refusal(const QString &reason)
{
    return u"cannot run tasks in a sandbox: %1. Install bubblewrap (Debian/Ubuntu: sudo apt "
           u"install bubblewrap; Fedora: sudo dnf install bubblewrap) and check that "
           u"'bwrap --ro-bind / / true' runs for the worker's user, or pass --no-sandbox to run "
           u"tasks unconfined, with access to everything the worker's user can read"_s.arg(reason);
}

bool Sandbox::showsSystemPath(const QString &path)
{
    const QFileInfo info(path);
    const QString resolved =
        info.exists() ? info.canonicalFilePath() : QDir::cleanPath(info.absoluteFilePath());
    const QStringList folders = systemFolders();
    for (const QString &folder : folders) {
        const QString real = QFileInfo(folder).canonicalFilePath();
        if (real.isEmpty())
            continue;
        if (resolved == real || resolved.startsWith(real + u'/'))
            return true;
    }
    return false;
}

QString Sandbox::configHidingPath(const QString &configFile)
{
    const QFileInfo file(configFile);
    QString folder = QFileInfo(file.absolutePath()).canonicalFilePath();
    if (folder.isEmpty())
        folder = QDir::cleanPath(file.absolutePath());
    if (folder == u"/"_s || QDir::cleanPath(QFileInfo(folder).path()) == u"/usr"_s)
        return file.absoluteFilePath();
    const QStringList folders = systemFolders();
    for (const QString &system : folders) {
        if (folder == system || folder == QFileInfo(system).canonicalFilePath())
            return file.absoluteFilePath();
    }
    return folder;
}

QString Sandbox::describe(const SandboxPolicy &policy) const
{
    switch (m_kind) {
    case Kind::Bubblewrap:
        return policy.network ? u"bubblewrap, network allowed"_s : u"bubblewrap, no network"_s;
    case Kind::None:
        break;
    }
    return u"none (--no-sandbox): the task can read and write what the worker's user can"_s;
}

} // namespace ddl::worker
