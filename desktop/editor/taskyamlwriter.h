#pragma once

#include "jobspec/jobspec.h"

#include <QByteArray>

namespace ddl::desktop {

// Writes a DDL JobSpec as the task.yaml ddlcli reads (job_data: ...). The dataset location is
// not part of the wire spec; datasetLocation is used, or ./data.
class TaskYamlWriter
{
public:
    static QByteArray write(const JobSpec &spec);
};

} // namespace ddl::desktop
