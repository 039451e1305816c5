#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ddl::worker {

// What a container needs of the NVIDIA driver to use a GPU: the device nodes (one per GPU, and
// the control ones every GPU needs) and the driver's user-space files (libcuda, libnvidia-*,
// nvidia-smi), found as the driver installed them. nvidia-ctk, which writes this elsewhere, is
// not in Debian.
struct NvidiaDriverFiles
{
    QMap<int, QString> gpuNodes; // GPU index -> /dev/nvidiaN
    QStringList controlNodes;    // /dev/nvidiactl, /dev/nvidia-uvm, ...
    QStringList files;           // libraries and programs, bound read-only at their own paths

    bool isEmpty() const { return gpuNodes.isEmpty(); }
};

// The CDI spec (Container Device Interface; podman 4.3 reads /etc/cdi and /var/run/cdi) that
// gives a container exactly the GPUs it was granted: `--device ddl.nvidia.com/gpu=N` brings
// /dev/nvidiaN, the control nodes and the driver's files, and no other GPU's node.
class CdiSpec
{
public:
    static constexpr QLatin1StringView Kind{"ddl.nvidia.com/gpu"};
    static constexpr QLatin1StringView DefaultDir{"/var/run/cdi"};
    static constexpr QLatin1StringView FileName{"ddl-nvidia.json"};

    // The driver's files as devDir and `ldconfig -p` (ldconfigOutput) show them; programs are
    // looked up on PATH (nvidia-smi).
    static NvidiaDriverFiles discover(const QString &devDir, const QByteArray &ldconfigOutput,
                                      const QStringList &programs = {QStringLiteral("nvidia-smi")});
    // The spec of those files, of kind (Kind unless a test names its own).
    static QJsonObject make(const NvidiaDriverFiles &driver, const QString &kind = QString(Kind));
    // The device a task names to get GPU index.
    static QString deviceName(int index, const QString &kind = QString(Kind));
    // Writes the spec to dir/fileName whole or not at all; the error says what to do.
    static Status write(const QJsonObject &spec, const QString &dir = DefaultDir,
                        const QString &fileName = FileName);
};

} // namespace ddl::worker
