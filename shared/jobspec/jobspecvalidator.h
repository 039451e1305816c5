#pragma once

#include "jobspec.h"
#include "specerror.h"

#include <QList>
#include <QSet>
#include <QString>

namespace ddl {

// The rules of a JobSpec, in one place for every client and the server. Field paths in the
// errors use the wire (OpenPAI) names: `taskRoles[1].gpuNumber: must be >= 0, got -1`.
class JobSpecValidator
{
public:
    // Every rule the spec breaks, all at once. A field whose path, or a parent's path
    // ("taskRoles", "taskRoles[2]"), is in skip is not checked: parsers pass the fields that
    // already failed to read, so that one mistake is reported once.
    static QList<SpecError> validate(const JobSpec &spec, const QSet<QString> &skip = {});

    // jobName: [A-Za-z0-9._~-]+
    static bool isValidJobName(const QString &name);
    // A task role name: [A-Za-z0-9_-]+
    static bool isValidRoleName(const QString &name);

    // A portList label: [A-Za-z0-9._~]+ (OpenPAI's rule)
    static bool isValidPortLabel(const QString &label);

    static constexpr int MinMemoryMB = 100;
    static constexpr int MaxPortsPerTask = 64; // besides the task's own port
    static constexpr int MaxJobEnvs = 256;
    static constexpr int MaxJobEnvValueLength = 4096; // 256 of them stay well below ARG_MAX
};

} // namespace ddl
