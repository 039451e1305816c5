#include "scheduler.h"

#include "jobs/jobstate.h"
#include "store/sql.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcScheduler, "ddl.server.scheduler")

namespace ddl::server {

Scheduler::Scheduler(const QSqlDatabase &db)
    : m_db(db)
{}

// The role of a spec by name, as the lease needs it.
static QJsonObject roleOf(const QJsonObject &spec, const QString &name)
{
    for (const QJsonValue &role : spec.value(QStringLiteral("taskRoles")).toArray()) {
        if (role.toObject().value(QStringLiteral("name")).toString() == name)
            return role.toObject();
    }
    return {};
}

// A port for the task's peers to reach it on: spread over a range by task id, so that tasks
// running at once on one worker do not collide.
static int portFor(qint64 taskId)
{
    return 20000 + int(taskId % 40000);
}

// OpenPAI's environment for one task (its table of PAI_* variables).
static QJsonObject paiEnvironment(const QSqlDatabase &db, qint64 jobId, int attempt,
                                  const QJsonObject &spec, const QString &userEmail,
                                  const QString &role, int roleIndex)
{
    const QJsonArray roles = spec.value(QStringLiteral("taskRoles")).toArray();
    const QJsonObject current = roleOf(spec, role);
    int totalTasks = 0;
    QStringList roleNames;
    for (const QJsonValue &value : roles) {
        totalTasks += value.toObject().value(QStringLiteral("taskNumber")).toInt();
        roleNames << value.toObject().value(QStringLiteral("name")).toString();
    }
    QJsonObject env{
        {QStringLiteral("PAI_JOB_NAME"), spec.value(QStringLiteral("jobName")).toString()},
        {QStringLiteral("PAI_USER_NAME"), userEmail},
        {QStringLiteral("PAI_DATA_DIR"), spec.value(QStringLiteral("dataDir")).toString()},
        {QStringLiteral("PAI_OUTPUT_DIR"), spec.value(QStringLiteral("outputDir")).toString()},
        {QStringLiteral("PAI_CODE_DIR"), spec.value(QStringLiteral("codeDir")).toString()},
        {QStringLiteral("PAI_TASK_ROLE_NAME"), role},
        {QStringLiteral("PAI_TASK_ROLE_NUM"),
         QString::number(current.value(QStringLiteral("taskNumber")).toInt())},
        {QStringLiteral("PAI_TASK_ROLE_INDEX"), QString::number(roleIndex)},
        {QStringLiteral("PAI_TASKS_NUM"), QString::number(totalTasks)},
        {QStringLiteral("PAI_TASK_ROLES_NUM"), QString::number(roles.size())},
        {QStringLiteral("PAI_TASK_ROLE_LIST"), roleNames.join(u',')},
        {QStringLiteral("PAI_KILL_ALL_ON_COMPLETED_TASK_NUM"),
         QString::number(spec.value(QStringLiteral("killAllOnCompletedTaskNumber")).toInt())},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_CPU_COUNT"),
         QString::number(current.value(QStringLiteral("cpuNumber")).toInt())},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_MEM_MB"),
         QString::number(current.value(QStringLiteral("memoryMB")).toInt())},
        {QStringLiteral("PAI_CURRENT_TASK_ROLE_GPU_COUNT"),
         QString::number(current.value(QStringLiteral("gpuNumber")).toInt())},
    };
    // Host lists of the tasks placed so far, "address:port" per task, by role number.
    Result<QSqlQuery> hosts = runSql(db,
                                     QStringLiteral("SELECT t.role, t.id, w.address FROM tasks t "
                                                    "JOIN workers w ON w.id = t.worker_id WHERE "
                                                    "t.job_id = ? AND t.attempt = ? ORDER BY "
                                                    "t.role, t.role_index"),
                                     {jobId, attempt});
    QHash<QString, QStringList> lists;
    while (hosts && hosts->next()) {
        lists[hosts->value(0).toString()]
            << hosts->value(2).toString() + u':' + QString::number(portFor(hosts->value(1).toLongLong()));
    }
    for (int i = 0; i < roleNames.size(); ++i) {
        env.insert(QStringLiteral("PAI_TASK_ROLE_%1_HOST_LIST").arg(i),
                   lists.value(roleNames[i]).join(u','));
    }
    return env;
}

Result<QJsonArray> Scheduler::lease(qint64 workerId, const FreeResources &free)
{
    QJsonArray leases;
    if (free.slotCount <= 0)
        return leases;
    Transaction transaction(m_db);
    if (Status begun = transaction.begin(); !begun)
        return begun.error();
    Result<QSqlQuery> waiting = runSql(
        m_db,
        QStringLiteral("SELECT t.id, t.job_id, t.attempt, t.role, t.role_index, j.uuid, j.name, "
                       "j.kind, j.spec, j.package_sha256, j.dataset_sha256, u.email FROM tasks t "
                       "JOIN jobs j ON j.id = t.job_id AND j.attempt = t.attempt JOIN users u ON "
                       "u.id = j.user_id WHERE t.state = ? AND j.state IN (?, ?) ORDER BY t.job_id, "
                       "t.task_index LIMIT 200"),
        {JobState::Waiting, JobState::Waiting, JobState::Running});
    if (!waiting)
        return waiting.error();
    Result<QSqlQuery> worker = runSql(m_db, QStringLiteral("SELECT address FROM workers WHERE id = ?"),
                                      {workerId});
    if (!worker)
        return worker.error();
    const QString address = worker->next() ? worker->value(0).toString() : QString();

    // Read the candidates out before writing: the statement must not see its own updates.
    QList<QVariantList> candidates;
    while (waiting->next()) {
        QVariantList row;
        for (int column = 0; column < 12; ++column)
            row << waiting->value(column);
        candidates << row;
    }
    waiting->finish();

    FreeResources left = free;
    QHash<qint64, QJsonObject> specs;
    for (const QVariantList &candidate : std::as_const(candidates)) {
        if (left.slotCount <= 0)
            break;
        const auto column = [&candidate](int i) { return candidate.at(i); };
        const qint64 taskId = column(0).toLongLong();
        const qint64 jobId = column(1).toLongLong();
        if (!specs.contains(jobId))
            specs.insert(jobId, QJsonDocument::fromJson(column(8).toByteArray()).object());
        const QJsonObject &spec = specs[jobId];
        const QString role = column(3).toString();
        const QJsonObject roleSpec = roleOf(spec, role);
        const int gpus = roleSpec.value(QStringLiteral("gpuNumber")).toInt();
        const int cpus = roleSpec.value(QStringLiteral("cpuNumber")).toInt();
        const qint64 memory = roleSpec.value(QStringLiteral("memoryMB")).toInteger();
        if (gpus > left.gpus || cpus > left.cpus || memory > left.memoryMb)
            continue;
        Result<QSqlQuery> take = runSql(m_db,
                                        QStringLiteral("UPDATE tasks SET state = ?, worker_id = ?, "
                                                       "port = ?, leased_at = ? WHERE id = ? AND "
                                                       "state = ?"),
                                        {JobState::Running, workerId, portFor(taskId), nowMs(),
                                         taskId, JobState::Waiting});
        if (!take)
            return take.error();
        left.slotCount -= 1;
        left.gpus -= gpus;
        left.cpus -= cpus;
        left.memoryMb -= memory;
        const int attempt = column(2).toInt();
        const int roleIndex = column(4).toInt();
        QJsonObject env = paiEnvironment(m_db, jobId, attempt, spec, column(11).toString(),
                                         role, roleIndex);
        env.insert(QStringLiteral("PAI_CURRENT_CONTAINER_IP"), address);
        env.insert(QStringLiteral("PAI_CURRENT_CONTAINER_PORT"), QString::number(portFor(taskId)));
        leases.append(QJsonObject{
            {QStringLiteral("task_id"), taskId},
            {QStringLiteral("job_uuid"), column(5).toString()},
            {QStringLiteral("job_name"), column(6).toString()},
            {QStringLiteral("kind"), column(7).toString()},
            {QStringLiteral("attempt"), attempt},
            {QStringLiteral("role"), role},
            {QStringLiteral("role_index"), roleIndex},
            {QStringLiteral("command"), roleSpec.value(QStringLiteral("command")).toString()},
            {QStringLiteral("gpus"), gpus},
            {QStringLiteral("cpus"), cpus},
            {QStringLiteral("memory_mb"), memory},
            {QStringLiteral("package_sha256"), column(9).toString()},
            {QStringLiteral("dataset_sha256"),
             column(10).isNull() ? QJsonValue() : QJsonValue(column(10).toString())},
            {QStringLiteral("env"), env},
        });
        qCInfo(lcScheduler) << "task" << taskId << "of job" << column(5).toString()
                            << "leased to worker" << workerId;
    }
    if (Status committed = transaction.commit(); !committed)
        return committed.error();
    return leases;
}

} // namespace ddl::server
