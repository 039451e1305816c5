#include "testimage.h"

#include <QProcess>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

// Runs a program to its end; its exit code (-1: did not start or finish) and what it wrote.
static int run(const QString &program, const QStringList &arguments, QString *output)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    process.closeWriteChannel();
    const bool done = process.waitForStarted(10000) && process.waitForFinished(300000);
    *output = QString::fromLocal8Bit(process.readAll()).trimmed().right(800);
    if (!done) {
        process.kill();
        process.waitForFinished(2000);
        return -1;
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QString ensureTestImage(const QString &podman)
{
    QString said;
    if (run(podman, {u"image"_s, u"exists"_s, TestImage}, &said) == 0)
        return {};
    const QString script =
        qEnvironmentVariable("DDL_SOURCE_DIR") + u"/scripts/make-test-image.sh"_s;
    if (run(u"bash"_s, {script, TestImage}, &said) != 0)
        return u"%1 %2 failed: %3"_s.arg(script, TestImage, said);
    return {};
}

QString containerProblem(const QString &podman)
{
    // As the worker runs containers here: runc, no network, explicit limits (docs/images.md).
    QString said;
    if (run(podman,
            {u"--runtime"_s,
             QStandardPaths::findExecutable(u"runc"_s),
             u"run"_s,
             u"--rm"_s,
             u"--network"_s,
             u"none"_s,
             u"--ulimit"_s,
             u"nofile=1024:1024"_s,
             u"--ulimit"_s,
             u"nproc=1024:1024"_s,
             TestImage,
             u"true"_s},
            &said) == 0)
        return {};
    return u"podman cannot start a container here: "_s + said;
}
