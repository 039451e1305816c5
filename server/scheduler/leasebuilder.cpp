#include "leasebuilder.h"

#include "jobs/jobcheckpoints.h"
#include "openpaienvironment.h"
#include "store/jobstore.h"
#include "store/sql.h"
#include "wire/jobstate.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace ddl::server {

LeaseBuilder::LeaseBuilder(const QSqlDatabase &db, qint64 checkpointMaxBytes)
    : m_db(db)
    , m_checkpointMaxBytes(checkpointMaxBytes)
{
}

namespace {

// "address:port" of a task of the attempt, with its role.
struct TaskHost
{
    QString role;
    QString hostPort;
};

} // namespace

// Every task of the attempt, in task order.
static QList<TaskHost> taskHosts(const QSqlDatabase &db, qint64 jobId, int attempt)
{
    QList<TaskHost> hosts;
    Result<QSqlQuery> query = runSql(db,
                                     QStringLiteral("SELECT t.role, t.port, w.address FROM tasks t "
                                                    "JOIN workers w ON w.id = t.worker_id WHERE "
                                                    "t.job_id = ? AND t.attempt = ? ORDER BY "
                                                    "t.task_index"),
                                     {jobId, attempt});
    while (query && query->next()) {
        hosts.append({query->value(u"role"_s).toString(),
                      query->value(u"address"_s).toString() + u':' +
                          QString::number(query->value(u"port"_s).toInt())});
    }
    return hosts;
}

// OpenPAI's environment for one task (its table of PAI_* variables), with the host lists of the
// whole gang: "address:port" of every task, by role number.
static QJsonObject paiEnvironment(const QList<TaskHost> &hosts,
                                  const QJsonObject &spec,
                                  const QString &userEmail,
                                  const QString &role,
                                  int roleIndex)
{
    const QJsonArray roles = spec.value(QStringLiteral("taskRoles")).toArray();
    const QJsonObject current = roleNamed(spec, role);
    int totalTasks = 0;
    QStringList roleNames;
    for (const QJsonValue &value : roles) {
        totalTasks += value.toObject().value(QStringLiteral("taskNumber")).toInt();
        roleNames << value.toObject().value(QStringLiteral("name")).toString();
    }
    const QString cpus = QString::number(current.value(QStringLiteral("cpuNumber")).toInt());
    const QString memory = QString::number(current.value(QStringLiteral("memoryMB")).toInt());
    const QString gpus = QString::number(current.value(QStringLiteral("gpuNumber")).toInt());
    QJsonObject env{
        {QStringLiteral("PAI_JOB_NAME"), spec.value(QStringLiteral("jobName")).toString()},
        {QStringLiteral("PAI_USER_NAME"), userEmail},
        // The config's strings; the worker gives the task real folders and keeps these as
        // PAI_*_DIR_URI.
        {QStringLiteral("PAI_DATA_DIR"), spec.value(QStringLiteral("dataDir")).toString()},
        {QStringLiteral("PAI_OUTPUT_DIR"), spec.value(QStringLiteral("outputDir")).toString()},
        {QStringLiteral("PAI_CODE_DIR"), spec.value(QStringLiteral("codeDir")).toString()},
        {QStringLiteral("PAI_TASK_ROLE_NAME"), role},
        {QStringLiteral("PAI_TASK_ROLE_NO"), QString::number(roleNames.indexOf(role))},
        {QStringLiteral("PAI_TASK_ROLE_NUM"),
         QString::number(current.value(QStringLiteral("taskNumber")).toInt())},
        {QStringLiteral("PAI_TASK_ROLE_INDEX"), QString::number(roleIndex)},
        {QStringLiteral("PAI_TASKS_NUM"), QString::number(totalTasks)},
        {QStringLiteral("PAI_TASK_ROLES_NUM"), QString::number(roles.size())},
        {QStringLiteral("PAI_TASK_ROLE_LIST"), roleNames.join(u',')},
        {QStringLiteral("PAI_KILL_ALL_ON_COMPLETED_TASK_NUM"),
         QString::number(spec.value(QStringLiteral("killAllOnCompletedTaskNumber")).toInt())},
        {QStringLiteral("PAI_TASK_CPU_NUM"), cpus},
        {QStringLiteral("PAI_TASK_MEM_MB"), memory},
        {QStringLiteral("PAI_TASK_GPU_NUM"), gpus},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_CPU_COUNT"), cpus},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_MEM_MB"), memory},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_GPU_COUNT"), gpus},
    };
    QHash<QString, QStringList> lists;
    for (const TaskHost &host : hosts)
        lists[host.role] << host.hostPort;
    for (int i = 0; i < roleNames.size(); ++i) {
        env.insert(QStringLiteral("PAI_TASK_ROLE_%1_HOST_LIST").arg(i),
                   lists.value(roleNames[i]).join(u','));
    }
    return env;
}

// What main() of a DDL job's task is told of its peers: its rank, their number, and TF_CONFIG
// for TensorFlow's MultiWorkerMirroredStrategy (every task's "address:port" in task order). A
// job of several roles (ElasticDL's ParameterServerStrategy: "ps" and "worker") has each role
// in the cluster, and the task's own role and index in it, as ParameterServerStrategy reads it.
static void addDdlEnvironment(QJsonObject &env,
                              const QList<TaskHost> &hosts,
                              int taskIndex,
                              const QString &role,
                              int roleIndex)
{
    QJsonObject cluster;
    bool severalRoles = false;
    for (const TaskHost &host : hosts) {
        severalRoles = severalRoles || host.role != hosts.first().role;
        QJsonArray members = cluster.value(host.role).toArray();
        members.append(host.hostPort);
        cluster.insert(host.role, members);
    }
    QJsonObject task{{QStringLiteral("type"), role}, {QStringLiteral("index"), roleIndex}};
    if (!severalRoles) {
        QJsonArray workers;
        for (const TaskHost &host : hosts)
            workers.append(host.hostPort);
        cluster = QJsonObject{{QStringLiteral("worker"), workers}};
        task = QJsonObject{{QStringLiteral("type"), QStringLiteral("worker")},
                           {QStringLiteral("index"), taskIndex}};
    }
    const QJsonObject tfConfig{{QStringLiteral("cluster"), cluster},
                               {QStringLiteral("task"), task}};
    env.insert(QStringLiteral("DDL_WORKER_INDEX"), QString::number(taskIndex));
    env.insert(QStringLiteral("DDL_WORKER_COUNT"), QString::number(hosts.size()));
    env.insert(QStringLiteral("TF_CONFIG"),
               QString::fromUtf8(QJsonDocument(tfConfig).toJson(QJsonDocument::Compact)));
}

// Where a task's output files go among the job's artifacts: the root for a job of one task,
// else a folder per task, "<role>-<index>/" ("worker-0/", "worker-1/"), so that none overwrites
// another's.
static QString outputPrefix(const QJsonObject &spec, const QString &role, int roleIndex)
{
    int totalTasks = 0;
    for (const QJsonValue &value : spec.value(QStringLiteral("taskRoles")).toArray())
        totalTasks += value.toObject().value(QStringLiteral("taskNumber")).toInt();
    return totalTasks > 1 ? QStringLiteral("%1-%2/").arg(role).arg(roleIndex) : QString();
}

Result<QList<TaskLease>> LeaseBuilder::undelivered(qint64 workerId) const
{
    Result<QSqlQuery> assigned =
        runSql(m_db,
               u"SELECT t.id AS task_id, t.job_id, t.attempt, t.role, t.role_index, t.port, "
               "t.gpu_indices, t.task_index, j.uuid, j.name, j.kind, j.spec, j.package_sha256, "
               "j.dataset_sha256, j.dataset_manifest, j.image_manifest, u.email, w.address "
               "FROM tasks t "
               "JOIN jobs j ON j.id = t.job_id JOIN users u ON u.id = j.user_id "
               "JOIN workers w ON w.id = t.worker_id "
               "WHERE t.worker_id = ? AND t.state = ? AND t.delivered = 0 ORDER BY t.id"_s,
               {workerId, stateName(JobState::Running)});
    if (!assigned)
        return assigned.error();
    QList<TaskLease> leases;
    while (assigned->next()) {
        const QSqlQuery &row = *assigned;
        const QJsonObject spec =
            QJsonDocument::fromJson(row.value(u"spec"_s).toByteArray()).object();
        const qint64 jobId = row.value(u"job_id"_s).toLongLong();
        TaskLease lease;
        lease.taskId = row.value(u"task_id"_s).toLongLong();
        lease.jobUuid = row.value(u"uuid"_s).toString();
        lease.jobName = row.value(u"name"_s).toString();
        lease.kind = row.value(u"kind"_s).toString() == TaskLease::kindName(TaskLease::Kind::Ddl)
                         ? TaskLease::Kind::Ddl
                         : TaskLease::Kind::OpenPai;
        lease.attempt = row.value(u"attempt"_s).toInt();
        lease.role = row.value(u"role"_s).toString();
        lease.roleIndex = row.value(u"role_index"_s).toInt();
        const QJsonObject roleSpec = roleNamed(spec, lease.role);
        lease.command = roleSpec.value(u"command"_s).toString();
        lease.image = spec.value(u"image"_s).toString();
        lease.gpuIndices = parseGpuIndices(row.value(u"gpu_indices"_s).toString());
        lease.gpus = int(lease.gpuIndices.size());
        lease.cpus = roleSpec.value(u"cpuNumber"_s).toInt();
        lease.memoryMb = roleSpec.value(u"memoryMB"_s).toInteger();
        lease.port = row.value(u"port"_s).toInt();
        lease.shmMb = roleSpec.value(u"shmMB"_s).toInt();
        lease.packageSha256 = row.value(u"package_sha256"_s).toString();
        lease.datasetSha256 = row.value(u"dataset_sha256"_s).toString();
        lease.datasetManifest = row.value(u"dataset_manifest"_s).toString();
        lease.imageManifest = row.value(u"image_manifest"_s).toString();
        lease.outputPrefix = outputPrefix(spec, lease.role, lease.roleIndex);
        lease.checkpointMaxBytes = m_checkpointMaxBytes;
        const Result<std::optional<CheckpointEntry>> checkpoint =
            JobCheckpoints(m_db).latest(jobId, lease.role, lease.roleIndex);
        if (!checkpoint)
            return checkpoint.error();
        if (*checkpoint) {
            lease.checkpointManifest = (*checkpoint)->manifestSha256;
            lease.checkpointAttempt = (*checkpoint)->attempt;
        }

        const QList<TaskHost> hosts = taskHosts(m_db, jobId, lease.attempt);
        QJsonObject env = paiEnvironment(
            hosts, spec, row.value(u"email"_s).toString(), lease.role, lease.roleIndex);
        if (lease.kind == TaskLease::Kind::Ddl)
            addDdlEnvironment(
                env, hosts, row.value(u"task_index"_s).toInt(), lease.role, lease.roleIndex);
        env.insert(u"PAI_CURRENT_CONTAINER_IP"_s, row.value(u"address"_s).toString());
        env.insert(u"PAI_CURRENT_CONTAINER_PORT"_s, QString::number(lease.port));
        addOpenPaiEnvironment(env, m_db, jobId, lease.attempt, spec, lease.role, lease.port);
        for (auto it = env.constBegin(); it != env.constEnd(); ++it)
            lease.env.insert(it.key(), it.value().toString());
        leases.append(lease);
    }
    return leases;
}

} // namespace ddl::server
