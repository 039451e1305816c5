#include "ownersettings.h"

#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ddl::worker {

Result<OwnerPolicy::Settings> ownerSettings(const WorkerConfig &config,
                                            const QList<GpuInfo> &lentGpus)
{
    OwnerPolicy::Settings settings;
    settings.hours = config.availableHours;
    settings.onlyWhenIdle = config.onlyWhenIdle;
    settings.checkIntervalMs = config.ownerCheckIntervalMs;
    settings.idleInputMs = config.idleInputMs;
    if (!config.lendGpus.isEmpty()) {
        for (const GpuInfo &gpu : lentGpus)
            settings.watchedGpus << gpu.uuid;
    }
    if (!config.inputDevices.isEmpty())
        settings.inputDevices = config.inputDevices;
    if (settings.idleInputMs > 0 && !InputActivity(settings.inputDevices).latest().at.isValid()) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"--idle-input-minutes watches %1 and none of these exists here, so "
                           u"the worker cannot tell whether the owner is at the machine; name "
                           u"the terminals and input devices with --input-devices"_s.arg(
                               settings.inputDevices.join(u", "_s)),
                           QString::fromLatin1(configkey::IdleInputMinutes));
    }
    if (config.onlyWhenIdle) {
        settings.nvidiaSmi = QStandardPaths::findExecutable(u"nvidia-smi"_s);
        if (settings.nvidiaSmi.isEmpty()) {
            return Error::make(ErrorCode::InvalidConfig,
                               u"--only-when-idle asks nvidia-smi whether the owner uses the GPU, "
                               u"and there is no nvidia-smi on PATH; install the NVIDIA driver's "
                               u"tools or leave --only-when-idle out"_s,
                               QString::fromLatin1(configkey::OnlyWhenIdle));
        }
    }
    return settings;
}

} // namespace ddl::worker
