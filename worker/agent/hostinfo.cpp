#include "hostinfo.h"

#include "workerlogging.h"

#include <QFile>
#include <QNetworkInterface>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QThread>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::worker {

qint64 parseMemTotalMb(const QByteArray &meminfo)
{
    static const QRegularExpression memTotal(u"^MemTotal:\\s+(\\d+)\\s*kB"_s,
                                             QRegularExpression::MultilineOption);
    const QRegularExpressionMatch match = memTotal.match(QString::fromLatin1(meminfo));
    if (!match.hasMatch())
        return -1;
    return match.captured(1).toLongLong() / 1024;
}

QList<GpuInfo> parseNvidiaSmiCsv(const QByteArray &csv)
{
    QList<GpuInfo> gpus;
    for (const QByteArray &rawLine : csv.split('\n')) {
        const QString line = QString::fromUtf8(rawLine).trimmed();
        const QStringList fields = line.split(u',');
        if (fields.size() < 5)
            continue;
        bool ok = false;
        GpuInfo gpu;
        gpu.index = fields.at(0).trimmed().toInt(&ok);
        if (!ok || gpu.index < 0)
            continue;
        gpu.minor = gpu.index;
        gpu.uuid = fields.at(1).trimmed();
        gpu.pciBusId = fields.at(2).trimmed();
        QString memory = fields.at(3).trimmed();
        memory.remove(u"MiB"_s);
        gpu.memoryMb = memory.trimmed().toLongLong();
        gpu.name = fields.mid(4).join(u',').trimmed();
        gpus.append(gpu);
    }
    return gpus;
}

int nvidiaDeviceMinor(const QString &pciBusId, const QString &procDir)
{
    // nvidia-smi says 00000000:18:00.0, the driver's folder is 0000:18:00.0.
    QStringList parts = pciBusId.trimmed().toLower().split(u':');
    if (parts.size() != 3 || parts.first().size() < 4)
        return -1;
    parts.first() = parts.first().right(4);
    QFile information(procDir + u'/' + parts.join(u':') + u"/information"_s);
    if (!information.open(QIODevice::ReadOnly))
        return -1;
    static const QRegularExpression minor(u"^Device Minor:\\s*(\\d+)\\s*$"_s,
                                          QRegularExpression::MultilineOption);
    const QRegularExpressionMatch match =
        minor.match(QString::fromLatin1(information.read(64 * 1024)));
    return match.hasMatch() ? match.captured(1).toInt() : -1;
}

static QList<GpuInfo> queryNvidiaSmi()
{
    const QString program = QStandardPaths::findExecutable(u"nvidia-smi"_s);
    if (program.isEmpty()) {
        qCInfo(lcWorkerAgent)
            << "nvidia-smi not found: no GPUs detected (declare them with --gpus N)";
        return {};
    }
    QProcess process;
    process.start(program, {u"--query-gpu=index,uuid,pci.bus_id,memory.total,name"_s, u"--format=csv,noheader"_s});
    if (!process.waitForFinished(15000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        qCWarning(lcWorkerAgent).noquote()
            << "nvidia-smi failed; no GPUs detected:"
            << QString::fromLocal8Bit(process.readAllStandardError()).trimmed();
        process.kill();
        process.waitForFinished(1000);
        return {};
    }
    QList<GpuInfo> gpus = parseNvidiaSmiCsv(process.readAllStandardOutput());
    // A task gets only its own GPUs' device nodes, which the driver numbers by minor.
    for (GpuInfo &gpu : gpus) {
        const int minor = nvidiaDeviceMinor(gpu.pciBusId);
        if (minor >= 0) {
            gpu.minor = minor;
        } else {
            qCWarning(lcWorkerAgent).noquote()
                << u"GPU %1 (%2): no Device Minor in /proc/driver/nvidia/gpus; taking /dev/nvidia%1"_s
                       .arg(gpu.index)
                       .arg(gpu.pciBusId);
        }
    }
    return gpus;
}

// The name of a GPU declared with --gpus, not seen by nvidia-smi: no model to announce.
static const QString DeclaredGpuName = u"declared"_s;

HostResources detectHostResources(int declaredGpus)
{
    HostResources resources;
    resources.cpus = std::max(1, QThread::idealThreadCount());
    QFile meminfo(u"/proc/meminfo"_s);
    if (meminfo.open(QIODevice::ReadOnly))
        resources.memoryMb = std::max<qint64>(0, parseMemTotalMb(meminfo.readAll()));
    if (declaredGpus >= 0) {
        for (int i = 0; i < declaredGpus; ++i)
            resources.gpus.append(GpuInfo{i, DeclaredGpuName, 0, {}, {}, i});
    } else {
        resources.gpus = queryNvidiaSmi();
    }
    return resources;
}

QString defaultGpuType(const HostResources &resources)
{
    if (resources.gpus.isEmpty() || resources.gpus.first().name == DeclaredGpuName)
        return {};
    return resources.gpus.first().name;
}

int defaultSlotCount(const HostResources &resources)
{
    return std::max({1, resources.cpus, int(resources.gpus.size())});
}

QString detectAdvertiseAddress()
{
    const QList<QNetworkInterface> interfaces = QNetworkInterface::allInterfaces();
    for (const QNetworkInterface &interface : interfaces) {
        const auto flags = interface.flags();
        if (!(flags & QNetworkInterface::IsUp) || !(flags & QNetworkInterface::IsRunning) ||
            (flags & QNetworkInterface::IsLoopBack)) {
            continue;
        }
        for (const QNetworkAddressEntry &entry : interface.addressEntries()) {
            const QHostAddress address = entry.ip();
            if (address.protocol() == QAbstractSocket::IPv4Protocol && !address.isLoopback())
                return address.toString();
        }
    }
    return u"127.0.0.1"_s;
}

Result<quint16> allocateFreePort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::Any, 0)) {
        return Error::make(
            ErrorCode::NoPort,
            u"cannot find a free TCP port for the task: %1"_s.arg(server.errorString()));
    }
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

} // namespace ddl::worker
