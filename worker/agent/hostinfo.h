#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ddl::worker {

// One GPU as nvidia-smi reports it.
struct GpuInfo
{
    int index = 0;
    QString name;
    qint64 memoryMb = 0;
    QString uuid; // GPU-...; empty for GPUs declared with --gpus
    QString pciBusId; // 00000000:18:00.0; empty for GPUs declared with --gpus
    // N of its device node /dev/nvidiaN (the driver's minor number), which need not be index.
    int minor = 0;
};

// What this machine offers to tasks; reported at enrollment and in every heartbeat.
struct HostResources
{
    int cpus = 1;
    qint64 memoryMb = 0;
    QList<GpuInfo> gpus;
};

// MemTotal of /proc/meminfo in MiB, or -1 when the text has none.
qint64 parseMemTotalMb(const QByteArray &meminfo);

// Rows of `nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.total,name --format=csv,noheader`
// (the name last: it is the one field that could hold a comma). minor is left at index.
// The minor number ("Device Minor:") of the GPU at pciBusId as the driver tells in
// procDir/<bus id>/information; -1 when that file is missing or says none.
int nvidiaDeviceMinor(const QString &pciBusId,
                      const QString &procDir = QStringLiteral("/proc/driver/nvidia/gpus"));
QList<GpuInfo> parseNvidiaSmiCsv(const QByteArray &csv);

// CPUs (QThread::idealThreadCount), memory (/proc/meminfo) and GPUs: declaredGpus of them when
// >= 0, else those nvidia-smi lists (none when it is missing or fails).
HostResources detectHostResources(int declaredGpus);

// The label a worker announces for OpenPAI's gpuType when the owner sets no --gpu-type: the
// model of its first GPU as nvidia-smi names it; none without GPUs or with declared ones.
QString defaultGpuType(const HostResources &resources);

// How many tasks run at once when the owner sets no --slots: one per CPU (and at least one per
// GPU), so that the server places tasks by their GPUs, CPUs and memory, not by a count.
int defaultSlotCount(const HostResources &resources);

// The first non-loopback IPv4 address of an interface that is up, else 127.0.0.1.
QString detectAdvertiseAddress();

// A TCP port that was free a moment ago (bound on port 0, then released) for a task to listen on.
Result<quint16> allocateFreePort();

} // namespace ddl::worker
