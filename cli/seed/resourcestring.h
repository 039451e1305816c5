#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::cli {

// What one task of a role asks for, in the units a DDL task role books.
struct ResourceRequest
{
    std::optional<int> cpus;     // whole CPUs (a fraction is rounded up)
    std::optional<int> memoryMB; // MiB (rounded up)
    std::optional<int> gpus;
    QStringList notes; // what was rounded, or is accepted without effect
};

// ElasticDL's resource strings ("cpu=1,memory=4096Mi,gpu=1") and the Kubernetes quantities the
// seeds write ("500m" CPUs, "4Gi" memory). Every error names the flag, what was given and what is
// expected.
class ResourceString
{
    Q_DECLARE_TR_FUNCTIONS(ResourceString)
public:
    // "cpu=1,memory=4096Mi,gpu=1": keys cpu, memory, gpu (also nvidia.com/gpu), and disk /
    // ephemeral-storage (checked, then noted as without effect); each key at most once.
    static Result<ResourceRequest> parse(const QString &text, const QString &flag);

    // A memory quantity in MiB, rounded up: "4096Mi", "4Gi", "512M", "1.5G", "1048576Ki".
    // A number without a unit is refused (Kubernetes would read bytes, which is never meant).
    static Result<int> memoryMB(const QString &text, const QString &flag);
    // CPUs: "2", "0.5", "500m"; rounded up to whole CPUs (*rounded says so), at least 1.
    static Result<int> cpus(const QString &text, const QString &flag, bool *rounded = nullptr);
    // A whole number of GPUs, 0 or more.
    static Result<int> gpus(const QString &text, const QString &flag);
};

} // namespace ddl::cli
