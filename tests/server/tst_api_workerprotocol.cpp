// The worker protocol: enrollment, leases, task states, retries and cancels, and a worker that
// touches another's task.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

#include <QSet>

using namespace ddl;
using namespace ddl::server;

class tst_ApiWorkerProtocol : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void enrollment_data();
    void enrollment();
    void leaseCarriesTaskAndEnvironment();
    void tasksOfOneJobSeeEachOther();
    void taskEndsWithoutAMessage_data();
    void taskEndsWithoutAMessage();
    void failedTaskIsRetriedThenFailsTheJob();
    void heartbeatCancelsTasksOfCancelledJob();
    void otherWorkerCannotTouchTheTask();
    void waitingReasonOfABackendIsTheJobsReason();
};

void tst_ApiWorkerProtocol::enrollment_data()
{
    QTest::addColumn<QString>("token"); // "good", or the token itself
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");

    QTest::newRow("good") << QStringLiteral("good") << QStringLiteral("gpu-box") << 201
                          << QString();
    QTest::newRow("wrong token") << QStringLiteral("ddle_wrong") << QStringLiteral("gpu-box") << 401
                                 << QStringLiteral("unauthorized");
    QTest::newRow("no token") << QString() << QStringLiteral("gpu-box") << 401
                              << QStringLiteral("unauthorized");
    QTest::newRow("no name") << QStringLiteral("good") << QString() << 400
                             << QStringLiteral("bad_request");
}

void tst_ApiWorkerProtocol::enrollment()
{
    QFETCH(QString, token);
    QFETCH(QString, name);
    QFETCH(int, status);
    QFETCH(QString, code);

    const Answer answer = post(
        QStringLiteral("/v1/workers/enroll"),
        {},
        {{QStringLiteral("enroll_token"), token == QLatin1String("good") ? m_enrollToken : token},
         {QStringLiteral("name"), name},
         {QStringLiteral("hostname"), QStringLiteral("gpu-box.local")},
         {QStringLiteral("cpus"), 4},
         {QStringLiteral("memory_mb"), 8192},
         {QStringLiteral("gpus"), 1},
         {QStringLiteral("slots"), 1}});
    if (!code.isEmpty()) {
        const QString problem = errorProblem(answer, status, code);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        return;
    }
    VERIFY_STATUS(answer, status);
    QVERIFY(answer.json().value(QLatin1String("worker_id")).toInteger() > 0);
    const QString workerToken = answer.json().value(QLatin1String("worker_token")).toString();
    QVERIFY(!workerToken.isEmpty());
    m_workersToRetire.append(
        Worker{answer.json().value(QLatin1String("worker_id")).toInteger(), workerToken});
    // The token works at once.
    const Answer heartbeat = post(QStringLiteral("/v1/workers/heartbeat"),
                                  workerToken,
                                  {{QStringLiteral("running"), QJsonArray()}});
    VERIFY_STATUS(heartbeat, 200);
    QCOMPARE(heartbeat.json().value(QLatin1String("cancel")).toArray(), QJsonArray());
}

void tst_ApiWorkerProtocol::leaseCarriesTaskAndEnvironment()
{
    const QString user = newUser(QStringLiteral("leaser@example.org"));
    const QString sha256 = uploadBlob(user, someBytes("lease", 700));
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("env-job")), sha256);
    QVERIFY(!uuid.isEmpty());
    const qint64 taskId = taskIdsOf(job(user, uuid), 1).at(0).toInteger();
    const Worker worker = enrollWorker(QStringLiteral("lease-worker"));
    QVERIFY(!worker.token.isEmpty());

    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    const QJsonObject leased = tasks.at(0).toObject();
    QCOMPARE(leased.value(QLatin1String("task_id")).toInteger(), taskId);
    QCOMPARE(leased.value(QLatin1String("job_uuid")).toString(), uuid);
    QCOMPARE(leased.value(QLatin1String("job_name")).toString(), QStringLiteral("env-job"));
    QCOMPARE(leased.value(QLatin1String("kind")).toString(), QStringLiteral("ddl"));
    QCOMPARE(leased.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(leased.value(QLatin1String("role")).toString(), QStringLiteral("worker"));
    QCOMPARE(leased.value(QLatin1String("role_index")).toInt(), 0);
    QCOMPARE(leased.value(QLatin1String("package_sha256")).toString(), sha256);
    QVERIFY(leased.value(QLatin1String("dataset_sha256")).isNull());

    const QJsonObject env = leased.value(QLatin1String("env")).toObject();
    QCOMPARE(env.value(QLatin1String("PAI_JOB_NAME")).toString(), QStringLiteral("env-job"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_NAME")).toString(), QStringLiteral("worker"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("0"));
    QCOMPARE(env.value(QLatin1String("PAI_TASKS_NUM")).toString(), QStringLiteral("1"));
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLES_NUM")).toString(), QStringLiteral("1"));
    // The worker enrolled over loopback: its tasks are reached at 127.0.0.1 on the task's port.
    const QString port = env.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    QVERIFY(port.toInt() > 0);
    QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_0_HOST_LIST")).toString(),
             QStringLiteral("127.0.0.1:") + port);

    // Leased means running on that worker; it is not handed out twice.
    const QJsonObject task = taskById(job(user, uuid), taskId);
    QCOMPARE(task.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(task.value(QLatin1String("worker")).toString(), QStringLiteral("lease-worker"));
    QCOMPARE(lease(worker).size(), 0);
    QCOMPARE(lease(enrollWorker(QStringLiteral("lease-worker-2"))).size(), 0);

    // The job runs once the worker says the task started.
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("RUNNING")), 200);
    const QJsonObject running = job(user, uuid);
    QCOMPARE(running.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QVERIFY(running.value(QLatin1String("started_at")).isString());
}

void tst_ApiWorkerProtocol::tasksOfOneJobSeeEachOther()
{
    const QString user = newUser(QStringLiteral("pair@example.org"));
    const QString sha256 = uploadBlob(user, someBytes("pair", 100));
    const Worker first = enrollWorker(QStringLiteral("pair-a"));
    const Worker second = enrollWorker(QStringLiteral("pair-b"));
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("pair-job"), 0, 2), sha256);
    QVERIFY(!uuid.isEmpty());
    // The whole job is placed at once; each worker collects what it got.
    QList<QJsonObject> envs;
    for (const Worker &worker : {first, second}) {
        for (const QJsonValue &task : lease(worker))
            envs << task.toObject().value(QLatin1String("env")).toObject();
    }
    QCOMPARE(envs.size(), 2);
    std::sort(envs.begin(), envs.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString() <
               b.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString();
    });
    const QJsonObject envA = envs.at(0);
    const QJsonObject envB = envs.at(1);
    QCOMPARE(envA.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("0"));
    QCOMPARE(envB.value(QLatin1String("PAI_TASK_ROLE_INDEX")).toString(), QStringLiteral("1"));
    for (const QJsonObject &env : {envA, envB}) {
        QCOMPARE(env.value(QLatin1String("PAI_TASKS_NUM")).toString(), QStringLiteral("2"));
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_NUM")).toString(), QStringLiteral("2"));
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLES_NUM")).toString(), QStringLiteral("1"));
        QCOMPARE(env.value(QLatin1String("PAI_JOB_NAME")).toString(), QStringLiteral("pair-job"));
    }
    // Both tasks see the whole gang, in role-index order, each at its own address and port.
    const QString hostA = envA.value(QLatin1String("PAI_CURRENT_CONTAINER_IP")).toString() + u':' +
                          envA.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    const QString hostB = envB.value(QLatin1String("PAI_CURRENT_CONTAINER_IP")).toString() + u':' +
                          envB.value(QLatin1String("PAI_CURRENT_CONTAINER_PORT")).toString();
    QVERIFY(hostA != hostB);
    for (const QJsonObject &env : {envA, envB}) {
        QCOMPARE(env.value(QLatin1String("PAI_TASK_ROLE_0_HOST_LIST")).toString(),
                 hostA + u',' + hostB);
    }
}

void tst_ApiWorkerProtocol::taskEndsWithoutAMessage_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("succeeded") << QStringLiteral("SUCCEEDED") << 0;
    QTest::newRow("failed") << QStringLiteral("FAILED") << 2;
}

void tst_ApiWorkerProtocol::taskEndsWithoutAMessage()
{
    QFETCH(QString, state);
    QFETCH(int, exitCode);

    const std::optional<RunningTask> started = startOneTask(QStringLiteral("quiet-") + state.toLower());
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;

    // ddl-worker's TaskRunner::reportState leaves "message" out when it has none to tell.
    const Answer answer = reportState(worker, taskId, state, exitCode, QString());
    VERIFY_STATUS(answer, 200);
    const QJsonObject ended = job(user, uuid);
    QCOMPARE(ended.value(QLatin1String("state")).toString(), state);
    QCOMPARE(taskById(ended, taskId).value(QLatin1String("exit_code")).toInt(-1), exitCode);
}

void tst_ApiWorkerProtocol::failedTaskIsRetriedThenFailsTheJob()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("retry"), 1);
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, firstTask] = *started;

    VERIFY_STATUS(reportState(worker, firstTask, QStringLiteral("FAILED"), 3), 200);
    QJsonObject retried = job(user, uuid);
    QCOMPARE(retried.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(retried.value(QLatin1String("attempt")).toInt(), 2);
    QCOMPARE(taskById(retried, firstTask).value(QLatin1String("state")).toString(),
             QStringLiteral("FAILED"));
    QCOMPARE(taskById(retried, firstTask).value(QLatin1String("exit_code")).toInt(), 3);
    const QJsonArray secondAttempt = taskIdsOf(retried, 2);
    QCOMPARE(secondAttempt.size(), 1);
    const qint64 secondTask = secondAttempt.at(0).toInteger();
    QVERIFY(secondTask != firstTask);
    // Waiting for a worker, or already placed on one (the scheduler runs at once).
    const QString secondState =
        taskById(retried, secondTask).value(QLatin1String("state")).toString();
    QVERIFY2(secondState == QLatin1String("WAITING") || secondState == QLatin1String("RUNNING"),
             qPrintable(secondState));

    // The new attempt is leased like any waiting task.
    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    QCOMPARE(tasks.at(0).toObject().value(QLatin1String("task_id")).toInteger(), secondTask);
    QCOMPARE(tasks.at(0).toObject().value(QLatin1String("attempt")).toInt(), 2);
    VERIFY_STATUS(reportState(worker, secondTask, QStringLiteral("RUNNING")), 200);
    VERIFY_STATUS(reportState(worker, secondTask, QStringLiteral("FAILED"), 4), 200);

    const QJsonObject failed = job(user, uuid);
    QCOMPARE(failed.value(QLatin1String("state")).toString(), QStringLiteral("FAILED"));
    QVERIFY(failed.value(QLatin1String("finished_at")).isString());
    const QString reason = failed.value(QLatin1String("reason")).toString();
    QVERIFY2(reason.contains(QStringLiteral("worker[0]")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("exit code 4")), qPrintable(reason));
    QCOMPARE(taskIdsOf(failed, 3).size(), 0); // no third attempt
    QCOMPARE(lease(worker).size(), 0);
}

void tst_ApiWorkerProtocol::heartbeatCancelsTasksOfCancelledJob()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("heartbeat"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
    const auto heartbeat = [&](const QJsonArray &running) {
        return post(QStringLiteral("/v1/workers/heartbeat"),
                    worker.token,
                    {{QStringLiteral("running"), running}, {QStringLiteral("slots"), 2}});
    };

    Answer before = heartbeat({taskId});
    VERIFY_STATUS(before, 200);
    QCOMPARE(before.json().value(QLatin1String("cancel")).toArray(), QJsonArray());

    const Answer cancelled = post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), user, {});
    VERIFY_STATUS(cancelled, 200);
    QCOMPARE(cancelled.json().value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));

    Answer after = heartbeat({taskId});
    VERIFY_STATUS(after, 200);
    QCOMPARE(after.json().value(QLatin1String("cancel")).toArray(), QJsonArray{taskId});

    // A task the worker runs but does not hold (a stale lease) must stop as well.
    Answer stale = heartbeat({taskId, 987654321});
    VERIFY_STATUS(stale, 200);
    QSet<qint64> toCancel;
    for (const QJsonValue &id : stale.json().value(QLatin1String("cancel")).toArray())
        toCancel.insert(id.toInteger());
    QCOMPARE(toCancel, (QSet<qint64>{taskId, 987654321}));

    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("STOPPED")), 200);
    const QJsonObject stopped = job(user, uuid);
    QCOMPARE(stopped.value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));
    QCOMPARE(taskById(stopped, taskId).value(QLatin1String("state")).toString(),
             QStringLiteral("STOPPED"));
    Answer quiet = heartbeat({});
    VERIFY_STATUS(quiet, 200);
    QCOMPARE(quiet.json().value(QLatin1String("cancel")).toArray(), QJsonArray());
}

void tst_ApiWorkerProtocol::otherWorkerCannotTouchTheTask()
{
    const std::optional<RunningTask> started = startOneTask(QStringLiteral("intruder"));
    QVERIFY(started);
    auto [user, uuid, worker, leased, package, taskId] = *started;
    const Worker intruder = enrollWorker(QStringLiteral("intruder-2"));
    QVERIFY(!intruder.token.isEmpty());
    const QString artifact = uploadBlob(intruder.token, "forged");
    QVERIFY(!artifact.isEmpty());

    VERIFY_ERROR(send("POST",
                      QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                      intruder.token,
                      "forged line\n",
                      QUrlQuery(QStringLiteral("offset=0")),
                      "application/octet-stream"),
                 409,
                 "conflict");
    VERIFY_ERROR(reportState(intruder, taskId, QStringLiteral("SUCCEEDED"), 0), 409, "conflict");
    VERIFY_ERROR(post(QStringLiteral("/v1/workers/tasks/%1/artifacts").arg(taskId),
                      intruder.token,
                      {{QStringLiteral("files"),
                        QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("x.txt")},
                                               {QStringLiteral("size"), 6},
                                               {QStringLiteral("sha256"), artifact}}}}}),
                 409,
                 "conflict");
    VERIFY_ERROR(get(QStringLiteral("/v1/workers/blobs/") + sha256Of(package), intruder.token),
                 404,
                 "not_found");

    // Nothing of it reached the job.
    const QJsonObject running = job(user, uuid);
    QCOMPARE(running.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(taskById(running, taskId).value(QLatin1String("state")).toString(),
             QStringLiteral("RUNNING"));
    const Answer log = get(QStringLiteral("/v1/jobs/%1/logs").arg(uuid),
                           user,
                           QUrlQuery(QStringLiteral("task=%1").arg(taskId)));
    VERIFY_STATUS(log, 200);
    QVERIFY(log.body.isEmpty());
    QCOMPARE(get(QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), user)
                 .json()
                 .value(QLatin1String("files"))
                 .toArray()
                 .size(),
             0);
    // The task's own worker still can.
    VERIFY_STATUS(send("POST",
                       QStringLiteral("/v1/workers/tasks/%1/log").arg(taskId),
                       worker.token,
                       "real line\n",
                       QUrlQuery(QStringLiteral("offset=0")),
                       "application/octet-stream"),
                  200);
}


// A Slurm worker (ddl-worker --backend slurm) runs no sandbox and no podman: it announces no
// runtime of those, and while Slurm keeps the leased task pending, its reason is the job's.
void tst_ApiWorkerProtocol::waitingReasonOfABackendIsTheJobsReason()
{
    const QString user = newUser(QStringLiteral("pending@example.org"));
    const QString sha256 = uploadBlob(user, someBytes("pending", 3000));
    const QString uuid = submitJob(user, wireSpec(QStringLiteral("pending")), sha256);
    QVERIFY(!uuid.isEmpty());
    const Answer enrolled = post(QStringLiteral("/v1/workers/enroll"), {},
                                 {{QStringLiteral("enroll_token"), m_enrollToken},
                                  {QStringLiteral("name"), QStringLiteral("slurm-worker")},
                                  {QStringLiteral("hostname"), QStringLiteral("login.local")},
                                  {QStringLiteral("cpus"), 64},
                                  {QStringLiteral("memory_mb"), 262144},
                                  {QStringLiteral("gpus"), 0},
                                  {QStringLiteral("slots"), 64},
                                  {QStringLiteral("runtimes"), QJsonArray{}}});
    VERIFY_STATUS(enrolled, 201);
    const Worker worker{enrolled.json().value(QLatin1String("worker_id")).toInteger(),
                        enrolled.json().value(QLatin1String("worker_token")).toString()};
    m_workersToRetire.append(worker);
    const QJsonArray tasks = lease(worker);
    QCOMPARE(tasks.size(), 1);
    const qint64 taskId = tasks.first().toObject().value(QLatin1String("task_id")).toInteger();
    const QString events = QStringLiteral("/v1/workers/tasks/%1/events").arg(taskId);

    const QString pending = QStringLiteral("Slurm job 12 is pending: Priority");
    VERIFY_STATUS(post(events, worker.token,
                       {{QStringLiteral("message"), pending},
                        {QStringLiteral("waiting_reason"), true}}),
                  200);
    QJsonObject waiting = job(user, uuid);
    QCOMPARE(waiting.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(waiting.value(QLatin1String("reason")).toString(), pending);
    // A plain event is only an event.
    VERIFY_STATUS(post(events, worker.token, {{QStringLiteral("message"), QStringLiteral("x")}}),
                  200);
    QCOMPARE(job(user, uuid).value(QLatin1String("reason")).toString(), pending);

    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("RUNNING")), 200);
    VERIFY_STATUS(post(events, worker.token,
                       {{QStringLiteral("message"), QStringLiteral("late")},
                        {QStringLiteral("waiting_reason"), true}}),
                  200);
    const QJsonObject running = job(user, uuid);
    QCOMPARE(running.value(QLatin1String("state")).toString(), QStringLiteral("RUNNING"));
    // A running job waits for nothing.
    QVERIFY(!running.value(QLatin1String("reason")).toString().contains(QLatin1String("late")));
    VERIFY_STATUS(reportState(worker, taskId, QStringLiteral("SUCCEEDED"), 0), 200);
}

QTEST_GUILESS_MAIN(tst_ApiWorkerProtocol)
#include "tst_api_workerprotocol.moc"
