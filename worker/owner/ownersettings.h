#pragma once

#include "agent/hostinfo.h"
#include "config/workerconfig.h"
#include "core/result.h"
#include "owner/ownerpolicy.h"

namespace ddl::worker {

// The owner's policy of a worker config over the GPUs it lends. Refuses what cannot be watched
// here (no nvidia-smi for --only-when-idle, none of the --input-devices), saying what to do.
Result<OwnerPolicy::Settings> ownerSettings(const WorkerConfig &config,
                                            const QList<GpuInfo> &lentGpus);

} // namespace ddl::worker
