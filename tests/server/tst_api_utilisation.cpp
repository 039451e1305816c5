// Utilisation samples (docs/api.md, "Utilisation"): a worker sends its machine's samples and its
// own tasks' (POST /v1/workers/samples); the job's owner reads them per task, nobody else; every
// user reads a worker's machine. Against the in-process server of ServerApiTestCase, over real
// TLS on loopback.
#include "serverapitestcase.h"

#include "store/sql.h"
#include "wire/utilisationsample.h"
#include "workers/utilisationservice.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;
using namespace ddl;
using namespace ddl::server;

namespace {

QJsonObject sample(qint64 at, double cpu, qint64 memory, const QJsonArray &gpus = {})
{
    QJsonObject object{{u"at"_s, at}, {u"cpu_percent"_s, cpu}, {u"memory_bytes"_s, memory}};
    if (!gpus.isEmpty())
        object.insert(u"gpus"_s, gpus);
    return object;
}

QJsonObject batch(const QJsonArray &machine, qint64 taskId, const QJsonArray &taskSamples)
{
    return {
        {u"worker"_s, machine},
        {u"tasks"_s, QJsonArray{QJsonObject{{u"task_id"_s, taskId}, {u"samples"_s, taskSamples}}}}};
}

} // namespace

class tst_ApiUtilisation : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void ownerReadsTaskSeriesOthersDoNot();
    void workerSpeaksOnlyForItsOwnTasks();
    void resentSamplesAreStoredOnce();
    void badBatchesAreRefused_data();
    void badBatchesAreRefused();
    void workerMachineSeries();
};

void tst_ApiUtilisation::ownerReadsTaskSeriesOthersDoNot()
{
    const auto task = startOneTask(u"util-owner"_s);
    QVERIFY(task);
    const qint64 now = nowMs();
    const QJsonArray gpu{QJsonObject{{u"index"_s, 0},
                                     {u"utilisation_percent"_s, 37},
                                     {u"memory_used_mb"_s, 1234},
                                     {u"memory_total_mb"_s, 16384}}};
    const Answer stored = post(
        u"/v1/workers/samples"_s,
        task->worker.token,
        batch({},
              task->taskId,
              {sample(now - 2000, 95.5, 1 << 20, gpu), sample(now - 1000, 180, 2 << 20, gpu)}));
    VERIFY_STATUS(stored, 200);
    QCOMPARE(stored.json().value(u"stored"_s).toInt(), 2);

    const Answer owner = get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid), task->user);
    VERIFY_STATUS(owner, 200);
    const QJsonArray tasks = owner.json().value(u"tasks"_s).toArray();
    QCOMPARE(tasks.size(), 1);
    const TaskUtilisation read = TaskUtilisation::fromJson(tasks.first().toObject());
    QCOMPARE(read.taskId, task->taskId);
    QCOMPARE(read.state, u"RUNNING"_s);
    QCOMPARE(read.samples.size(), 2);
    QCOMPARE(read.samples.at(0).atMs, now - 2000);
    QCOMPARE(read.samples.at(0).cpuPercent, 95.5);
    QCOMPARE(read.samples.at(1).memoryBytes, qint64(2 << 20));
    QCOMPARE(read.samples.at(1).gpus, (QList<GpuReading>{{0, 37, 1234, 16384}}));

    // Another user, by uuid: as if there were no such job.
    VERIFY_ERROR(get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid), m_bob), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid), QString()), 401, "unauthorized");
    VERIFY_ERROR(get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid),
                     task->user,
                     QUrlQuery{{u"attempt"_s, u"x"_s}}),
                 400,
                 "bad_request");
}

void tst_ApiUtilisation::workerSpeaksOnlyForItsOwnTasks()
{
    const auto task = startOneTask(u"util-theirs"_s);
    QVERIFY(task);
    const Worker stranger = enrollWorker(u"util-stranger"_s);
    const Answer answer = post(u"/v1/workers/samples"_s,
                               stranger.token,
                               batch({}, task->taskId, {sample(nowMs(), 50, 100)}));
    VERIFY_STATUS(answer, 200);
    QCOMPARE(answer.json().value(u"stored"_s).toInt(), 0);
    QCOMPARE(answer.json().value(u"ignored_tasks"_s).toArray(), (QJsonArray{task->taskId}));
    const Answer read = get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid), task->user);
    VERIFY_STATUS(read, 200);
    QVERIFY(read.json()
                .value(u"tasks"_s)
                .toArray()
                .first()
                .toObject()
                .value(u"samples"_s)
                .toArray()
                .isEmpty());
    // Users cannot send samples at all.
    VERIFY_STATUS(post(u"/v1/workers/samples"_s, task->user, batch({}, task->taskId, {})), 401);
}

void tst_ApiUtilisation::resentSamplesAreStoredOnce()
{
    const auto task = startOneTask(u"util-resend"_s);
    QVERIFY(task);
    const qint64 now = nowMs();
    const QJsonObject body =
        batch({}, task->taskId, {sample(now - 500, 10, 1), sample(now, 20, 2)});
    QCOMPARE(
        post(u"/v1/workers/samples"_s, task->worker.token, body).json().value(u"stored"_s).toInt(),
        2);
    // The answer to the first was lost: the worker sends the same batch again.
    QCOMPARE(
        post(u"/v1/workers/samples"_s, task->worker.token, body).json().value(u"stored"_s).toInt(),
        0);
    const Answer read = get(u"/v1/jobs/%1/utilisation"_s.arg(task->uuid), task->user);
    QCOMPARE(read.json()
                 .value(u"tasks"_s)
                 .toArray()
                 .first()
                 .toObject()
                 .value(u"samples"_s)
                 .toArray()
                 .size(),
             2);
}

void tst_ApiUtilisation::badBatchesAreRefused_data()
{
    QTest::addColumn<QJsonObject>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("field");
    const qint64 now = nowMs();
    QTest::newRow("negative cpu") << batch({}, 1, {sample(now, -1, 1)}) << 400 << u"bad_request"_s
                                  << u"tasks[0].samples[0].cpu_percent"_s;
    QTest::newRow("machine sample without time")
        << QJsonObject{{u"worker"_s,
                        QJsonArray{QJsonObject{{u"cpu_percent"_s, 1}, {u"memory_bytes"_s, 1}}}}}
        << 400 << u"bad_request"_s << u"worker[0].at"_s;
    QTest::newRow("samples not a list")
        << QJsonObject{{u"tasks"_s,
                        QJsonArray{QJsonObject{{u"task_id"_s, 1}, {u"samples"_s, u"many"_s}}}}}
        << 400 << u"bad_request"_s << u"tasks[0].samples"_s;
    QJsonArray many;
    for (int i = 0; i <= UtilisationService::MaxSamplesPerBatch; ++i)
        many.append(sample(now - i, 1, 1));
    QTest::newRow("too many") << QJsonObject{{u"worker"_s, many}} << 413 << u"payload_too_large"_s
                              << QString();
}

void tst_ApiUtilisation::badBatchesAreRefused()
{
    QFETCH(QJsonObject, body);
    QFETCH(int, status);
    QFETCH(QString, code);
    QFETCH(QString, field);
    const Worker worker = enrollWorker(u"util-bad"_s);
    const Answer answer = post(u"/v1/workers/samples"_s, worker.token, body);
    const QString problem = errorProblem(answer, status, code);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    if (!field.isEmpty())
        QCOMPARE(answer.error().value(u"field"_s).toString(), field);
}

void tst_ApiUtilisation::workerMachineSeries()
{
    const Worker worker = enrollWorker(u"util-machine"_s);
    const qint64 now = nowMs();
    VERIFY_STATUS(
        post(u"/v1/workers/samples"_s,
             worker.token,
             {{u"worker"_s,
               QJsonArray{sample(now - 1000, 150, 4LL << 30), sample(now, 160, 5LL << 30)}}}),
        200);
    // The list gives the id the series is read by.
    const Answer list = get(u"/v1/workers"_s, m_alice);
    QString id;
    for (const QJsonValue &value : list.json().value(u"workers"_s).toArray()) {
        if (value.toObject().value(u"name"_s).toString() == u"util-machine"_s)
            id = value.toObject().value(u"id"_s).toString();
    }
    QCOMPARE(id, QString::number(worker.id));
    const Answer read = get(u"/v1/workers/%1/utilisation"_s.arg(id), m_bob);
    VERIFY_STATUS(read, 200);
    const WorkerUtilisation machine = WorkerUtilisation::fromJson(read.json());
    QCOMPARE(machine.name, u"util-machine"_s);
    QCOMPARE(machine.samples.size(), 2);
    QCOMPARE(machine.samples.last().memoryBytes, 5LL << 30);
    VERIFY_ERROR(get(u"/v1/workers/999999/utilisation"_s, m_alice), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/workers/abc/utilisation"_s, m_alice), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/workers/%1/utilisation"_s.arg(id), QString()), 401, "unauthorized");
}

QTEST_GUILESS_MAIN(tst_ApiUtilisation)
#include "tst_api_utilisation.moc"
