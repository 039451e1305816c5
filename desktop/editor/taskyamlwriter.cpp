#include "taskyamlwriter.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

QByteArray TaskYamlWriter::write(const JobSpec &spec)
{
    const TaskRole role = spec.taskRoles.isEmpty() ? TaskRole() : spec.taskRoles.first();
    const QString dataset = spec.datasetLocation.isEmpty() ? u"./data"_s : spec.datasetLocation;
    QString yaml;
    yaml += u"# DDL job, written by ddl-desktop\n"_s;
    yaml += u"job_data:\n"_s;
    yaml += u"  job_name: "_s + spec.jobName + u'\n';
    yaml += u"  dataset:\n    dataset_location: "_s + dataset + u'\n';
    yaml += u"  worker_required: "_s + QString::number(role.taskNumber) + u'\n';
    yaml += u"  gpu_per_worker: "_s + QString::number(role.gpuNumber) + u'\n';
    yaml += u"  cpu_per_worker: "_s + QString::number(role.cpuNumber) + u'\n';
    yaml += u"  memory_mb_per_worker: "_s + QString::number(role.memoryMB) + u'\n';
    yaml += u"  retry_count: "_s + QString::number(spec.retryCount) + u'\n';
    return yaml.toUtf8();
}

} // namespace ddl::desktop
