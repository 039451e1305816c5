#include "fakenvidiasmi.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace {

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(content) == content.size();
}

} // namespace

bool FakeNvidiaSmi::install(const QString &folder, const QList<Gpu> &gpus)
{
    m_folder = QDir(folder).absolutePath();
    m_gpus = gpus;
    if (!QDir().mkpath(m_folder))
        return false;
    // The fields in the order the worker asks for them (worker/agent/hostinfo.cpp,
    // worker/monitor/gpupoller.cpp, worker/owner/ownerpolicy.cpp).
    QByteArray list;
    QByteArray utilisation;
    for (const Gpu &gpu : gpus) {
        // The bus ids of cards 0, 1... in slots 0x18, 0x19... (no driver folder: minor = index).
        list += QByteArray::number(gpu.index) + ", " + gpu.uuid.toUtf8() + ", 00000000:" +
                QByteArray::number(0x18 + gpu.index, 16) + ":00.0, " +
                QByteArray::number(gpu.memoryMb) + " MiB, Fake GPU\n";
        utilisation += QByteArray::number(gpu.index) + ", " +
                       QByteArray::number(gpu.utilisationPercent) + ", " +
                       QByteArray::number(gpu.memoryUsedMb) + ", " +
                       QByteArray::number(gpu.memoryMb) + '\n';
    }
    const QByteArray dir = m_folder.toUtf8();
    const QByteArray script = "#!/bin/sh\ncase \"$*\" in\n*query-compute-apps*) cat '" + dir +
                              "/compute-apps.csv' ;;\n*utilization.gpu*) cat '" + dir +
                              "/utilisation.csv' ;;\n*query-gpu*) cat '" + dir +
                              "/gpus.csv' ;;\n*) echo \"fake nvidia-smi: $*\" >&2; exit 2 ;;\n"
                              "esac\n";
    return writeFile(m_folder + u"/gpus.csv"_s, list) &&
           writeFile(m_folder + u"/utilisation.csv"_s, utilisation) && setComputeApps({}) &&
           writeFile(m_folder + u"/nvidia-smi"_s, script) &&
           QFile::setPermissions(m_folder + u"/nvidia-smi"_s,
                                 QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                     QFileDevice::ExeOwner);
}

QProcessEnvironment FakeNvidiaSmi::environment() const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"PATH"_s, m_folder + u':' + environment.value(u"PATH"_s));
    return environment;
}

bool FakeNvidiaSmi::setComputeApps(const QList<ComputeApp> &apps)
{
    QByteArray csv;
    for (const ComputeApp &app : apps) {
        QString uuid;
        for (const Gpu &gpu : std::as_const(m_gpus)) {
            if (gpu.index == app.gpuIndex)
                uuid = gpu.uuid;
        }
        csv += QByteArray::number(app.pid) + ", " + uuid.toUtf8() + '\n';
    }
    // Written whole and renamed, so that the worker never reads half a list.
    const QString path = m_folder + u"/compute-apps.csv"_s;
    return writeFile(path + u".new"_s, csv) && (!QFile::exists(path) || QFile::remove(path)) &&
           QFile::rename(path + u".new"_s, path);
}
