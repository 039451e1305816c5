// Platforms without bubblewrap: there is no sandbox, and the worker runs tasks only when its
// owner says --no-sandbox.
#include "sandbox.h"

#include <QProcess>
#include <QSysInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

QString Sandbox::defaultBubblewrapPath()
{
    return {};
}

QStringList Sandbox::systemFolders()
{
    return {};
}

Result<Sandbox> Sandbox::probe(const QString &bubblewrap, const SandboxPolicy &policy)
{
    Q_UNUSED(bubblewrap);
    Q_UNUSED(policy);
    return Error::make(ErrorCode::SandboxUnavailable,
                       refusal(u"the sandbox needs Linux with bubblewrap, and this is %1"_s.arg(
                           QSysInfo::prettyProductName())));
}

QStringList Sandbox::arguments(const SandboxSpec &spec,
                               const QString &program,
                               const QStringList &arguments) const
{
    Q_UNUSED(spec);
    return QStringList{program} + arguments;
}

void Sandbox::setup(QProcess &process,
                    const SandboxSpec &spec,
                    const QString &program,
                    const QStringList &arguments) const
{
    Q_UNUSED(spec);
    process.setProgram(program);
    process.setArguments(arguments);
}

bool Sandbox::terminate(qint64 launcherPid) const
{
    Q_UNUSED(launcherPid);
    return false;
}

} // namespace ddl::worker
