#include "unprivilegeduser.h"

#include <QFile>
#include <QProcess>

#include <pwd.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

static QString runOrSay(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        return u"%1 %2 failed: %3"_s.arg(program, arguments.join(u' '),
                                          QString::fromLocal8Bit(process.readAll()).trimmed());
    }
    return {};
}

// Whether the ids file (/etc/subuid) gives user a range.
static bool hasRange(const QString &file, const QString &user)
{
    QFile ids(file);
    if (!ids.open(QIODevice::ReadOnly))
        return false;
    while (!ids.atEnd()) {
        if (QString::fromUtf8(ids.readLine()).startsWith(user + u':'))
            return true;
    }
    return false;
}

UnprivilegedUser ensureUnprivilegedUser(const QString &name)
{
    UnprivilegedUser user;
    user.name = name;
    if (::geteuid() != 0) {
        user.problem = u"making the user %1 and running a worker as it needs root"_s.arg(name);
        return user;
    }
    if (!::getpwnam(qPrintable(name))) {
        user.problem = runOrSay(u"useradd"_s, {u"--create-home"_s, u"--shell"_s,
                                               u"/usr/sbin/nologin"_s, name});
        if (!user.isValid())
            return user;
    }
    // useradd gives a range only where /etc/subuid already existed (not in a minbase root).
    if (!hasRange(u"/etc/subuid"_s, name) || !hasRange(u"/etc/subgid"_s, name)) {
        for (const QString &file : {u"/etc/subuid"_s, u"/etc/subgid"_s}) {
            QFile ids(file);
            if (!ids.exists() && ids.open(QIODevice::WriteOnly))
                ids.close(); // usermod adds to these files, it does not make them
        }
        user.problem = runOrSay(u"usermod"_s, {u"--add-subuids"_s, u"300000-365535"_s,
                                               u"--add-subgids"_s, u"300000-365535"_s, name});
        if (!user.isValid())
            return user;
    }
    const passwd *entry = ::getpwnam(qPrintable(name));
    if (!entry) {
        user.problem = u"the user %1 was made but cannot be found"_s.arg(name);
        return user;
    }
    user.uid = entry->pw_uid;
    user.gid = entry->pw_gid;
    user.home = QString::fromLocal8Bit(entry->pw_dir);
    return user;
}
