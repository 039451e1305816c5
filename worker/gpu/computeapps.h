#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace ddl::worker {

// A process computing on a GPU, as nvidia-smi lists it.
struct ComputeApp
{
    qint64 pid = 0;
    QString gpuUuid;
    friend bool operator==(const ComputeApp &, const ComputeApp &) = default;
};

// The arguments of the query parseComputeApps reads.
inline constexpr char ComputeAppsQuery[] = "--query-compute-apps=pid,gpu_uuid";

// The rows of `nvidia-smi --query-compute-apps=pid,gpu_uuid --format=csv,noheader`
// ("478, GPU-8912d640-..."); rows without a process ID are left out.
QList<ComputeApp> parseComputeApps(const QByteArray &csv);

} // namespace ddl::worker
