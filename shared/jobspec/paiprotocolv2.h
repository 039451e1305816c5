#pragma once

#include "specerror.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace YAML {
class Node;
}

namespace ddl {

// OpenPAI's job protocol v2 (`protocolVersion: 2`, the YAML its portal writes) turned into the
// v1 job JSON that JobSpecParser reads: taskRoles by name become the taskRoles list, each
// dockerImage the image of its prerequisite, resourcePerInstance the role's resources and ports,
// completion its minFailed/minSucceededTaskCount, commands (with the active deployment's
// preCommands and postCommands) one script, `<% $parameters.x %>` (and $secrets, $data,
// $output, $script) substituted.
class PaiProtocolV2
{
public:
    struct Conversion
    {
        QJsonObject job;               // the v1 form; meaningful when errors is empty
        QList<SpecError> errors;       // with the v2 field paths
        QStringList notes;             // v2 fields kept that have no effect here
        QStringList roleNames;         // job's taskRoles[i] is the v2 role roleNames[i]
        QList<QStringList> portLabels; // per role: the label of portList[j]
    };

    // Whether a YAML document is a v2 job: a mapping with protocolVersion.
    static bool isV2(const YAML::Node &root);
    static Conversion convert(const YAML::Node &root);
    // The v2 path of a field of the converted v1 job, for errors found in it
    // (taskRoles[1].cpuNumber -> taskRoles.worker.resourcePerInstance.cpu).
    static QString v2Path(const Conversion &conversion, const QString &v1Path);
};

} // namespace ddl
