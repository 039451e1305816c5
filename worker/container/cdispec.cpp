#include "cdispec.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ddl::worker {

NvidiaDriverFiles CdiSpec::discover(const QString &devDir, const QByteArray &ldconfigOutput,
                                    const QStringList &programs)
{
    NvidiaDriverFiles driver;
    const QDir dev(devDir);
    static const QRegularExpression gpuNode(u"^nvidia([0-9]+)$"_s);
    for (const QString &name : dev.entryList(QDir::System | QDir::Files, QDir::Name)) {
        if (const QRegularExpressionMatch match = gpuNode.match(name); match.hasMatch())
            driver.gpuNodes.insert(match.captured(1).toInt(), dev.filePath(name));
    }
    for (const char *name : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"}) {
        if (dev.exists(QLatin1StringView(name)))
            driver.controlNodes << dev.filePath(QLatin1StringView(name));
    }
    // "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1"
    static const QRegularExpression library(
        u"^\\s*(libcuda\\.so|libnvidia-[A-Za-z0-9_-]+\\.so)[^ ]* \\(([^)]*)\\) => (/\\S+)$"_s);
    for (const QByteArray &line : ldconfigOutput.split('\n')) {
        const QRegularExpressionMatch match = library.match(QString::fromLocal8Bit(line));
        // The machine's own word size only: a 32-bit copy would not load in a 64-bit task. A
        // stale cache entry names a file that is gone, and a mount of it would fail every task.
        if (match.hasMatch() && match.captured(2).contains(u"64"_s) &&
            !driver.files.contains(match.captured(3)) && QFileInfo::exists(match.captured(3)))
            driver.files << match.captured(3);
    }
    for (const QString &program : programs) {
        const QString path = QStandardPaths::findExecutable(program);
        if (!path.isEmpty())
            driver.files << path;
    }
    return driver;
}

QJsonObject CdiSpec::make(const NvidiaDriverFiles &driver, const QString &kind)
{
    const auto node = [](const QString &hostPath) {
        // Inside, every node has the name the driver gives it, wherever it was found here.
        return QJsonObject{{u"path"_s, QString(u"/dev/"_s + QFileInfo(hostPath).fileName())},
                           {u"hostPath"_s, hostPath}};
    };
    QJsonArray devices;
    for (auto it = driver.gpuNodes.cbegin(); it != driver.gpuNodes.cend(); ++it) {
        devices.append(QJsonObject{
            {u"name"_s, QString::number(it.key())},
            {u"containerEdits"_s, QJsonObject{{u"deviceNodes"_s, QJsonArray{node(it.value())}}}}});
    }
    QJsonArray controlNodes;
    for (const QString &path : driver.controlNodes)
        controlNodes.append(node(path));
    QJsonArray mounts;
    for (const QString &path : driver.files) {
        mounts.append(QJsonObject{{u"hostPath"_s, path},
                                  {u"containerPath"_s, path},
                                  {u"options"_s, QJsonArray{u"ro"_s, u"nosuid"_s, u"nodev"_s,
                                                            u"bind"_s}}});
    }
    return QJsonObject{{u"cdiVersion"_s, u"0.5.0"_s},
                       {u"kind"_s, kind},
                       {u"devices"_s, devices},
                       {u"containerEdits"_s,
                        QJsonObject{{u"deviceNodes"_s, controlNodes}, {u"mounts"_s, mounts}}}};
}

QString CdiSpec::deviceName(int index, const QString &kind)
{
    return kind + u'=' + QString::number(index);
}

Status CdiSpec::write(const QJsonObject &spec, const QString &dir, const QString &fileName)
{
    if (!QDir().mkpath(dir)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot create %1 for the GPUs' CDI spec; run the worker as a user "
                           u"that may write there, or GPU tasks keep the sandbox"_s.arg(dir));
    }
    QSaveFile file(QDir(dir).filePath(fileName));
    const QByteArray bytes = QJsonDocument(spec).toJson();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        return Error::make(ErrorCode::IoError, u"cannot write the GPUs' CDI spec %1: %2"_s.arg(
                                                   file.fileName(), file.errorString()));
    }
    return Ok{};
}

} // namespace ddl::worker
