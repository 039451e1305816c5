#pragma once

#include "agent/hostinfo.h"
#include "core/result.h"

#include <QStringList>

namespace ddl::worker {

// The GPUs of `all` that the owner lends (--lend-gpus: indexes or UUIDs), in nvidia-smi's order;
// every one when `lent` is empty. Refuses a name that is no GPU here, listing those there are.
Result<QList<GpuInfo>> selectLentGpus(const QList<GpuInfo> &all, const QStringList &lent);

// The physical GPU indexes of a lease: the server books GPUs by their position in the list the
// worker announced (0 .. count-1), which with --lend-gpus is not their nvidia-smi index. Empty
// when a position is out of range.
QList<int> gpusAtPositions(const QList<GpuInfo> &announced, const QList<int> &positions);

} // namespace ddl::worker
