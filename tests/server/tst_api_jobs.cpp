// Jobs: submit, read, list, cancel; invalid specs and OpenPAI configs as written; only the
// owner's blobs and jobs.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "serverapitestcase.h"

#include "jobspec/jobspecparser.h"

#include <QJsonArray>
#include <QSet>
#include <QUuid>

using namespace ddl;
using namespace ddl::server;

class tst_ApiJobs : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void submitGetCancel();
    void listPagesAndFilters_data();
    void listPagesAndFilters();
    void invalidSpecListsEveryError();
    void openPaiConfigSubmittedAsWritten_data();
    void openPaiConfigSubmittedAsWritten();
    void submissionNeedsOwnBlobs_data();
    void submissionNeedsOwnBlobs();
    void otherUserSeesNothing();
    void paddleSeedRoutes();
};

void tst_ApiJobs::submitGetCancel()
{
    const QByteArray package = someBytes("submitGetCancel", 5000);
    const QString sha256 = uploadBlob(m_alice, package);
    QCOMPARE(sha256, sha256Of(package));

    // The spec as ddlcli makes it from a task.yaml.
    Result<JobSpec> spec = JobSpecParser::parseTaskYaml("job_data:\n"
                                                        "  job_name: yaml-job\n"
                                                        "  dataset:\n"
                                                        "    dataset_location: ./data\n"
                                                        "  worker_required: 2\n"
                                                        "  cpu_per_worker: 1\n"
                                                        "  memory_mb_per_worker: 1024\n",
                                                        QStringLiteral("fallback"));
    QVERIFY2(spec, spec ? "" : qPrintable(spec.error().message));
    const Answer submitted =
        post(QStringLiteral("/v1/jobs"), m_alice, submission(spec->toJson(), sha256));
    VERIFY_STATUS(submitted, 201);
    const QJsonObject created = submitted.json();
    const QString uuid = created.value(QLatin1String("uuid")).toString();
    QVERIFY(!QUuid::fromString(uuid).isNull());
    m_jobsToCancel.append({m_alice, uuid});
    QCOMPARE(created.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(created.value(QLatin1String("name")).toString(), QStringLiteral("yaml-job"));
    QCOMPARE(created.value(QLatin1String("kind")).toString(), QStringLiteral("ddl"));
    QCOMPARE(created.value(QLatin1String("commit")).toString(), QStringLiteral("0123abcd"));
    QCOMPARE(created.value(QLatin1String("attempt")).toInt(), 1);
    QVERIFY(created.value(QLatin1String("created_at")).isString());
    QVERIFY(created.value(QLatin1String("finished_at")).isNull());

    // Read back: the same job, with its two waiting tasks.
    const QJsonObject read = job(m_alice, uuid);
    QCOMPARE(read.value(QLatin1String("uuid")).toString(), uuid);
    QCOMPARE(read.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
    QCOMPARE(read.value(QLatin1String("spec")).toObject(), spec->toJson());
    const QJsonArray tasks = read.value(QLatin1String("tasks")).toArray();
    QCOMPARE(tasks.size(), 2);
    for (int i = 0; i < tasks.size(); ++i) {
        const QJsonObject task = tasks.at(i).toObject();
        QCOMPARE(task.value(QLatin1String("state")).toString(), QStringLiteral("WAITING"));
        QCOMPARE(task.value(QLatin1String("role")).toString(), QStringLiteral("worker"));
        QCOMPARE(task.value(QLatin1String("role_index")).toInt(), i);
        QCOMPARE(task.value(QLatin1String("attempt")).toInt(), 1);
    }

    const Answer cancelled = post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), m_alice, {});
    VERIFY_STATUS(cancelled, 200);
    QCOMPARE(cancelled.json().value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));
    QVERIFY(cancelled.json().value(QLatin1String("finished_at")).isString());
    for (const QJsonValue &task : cancelled.json().value(QLatin1String("tasks")).toArray())
        QCOMPARE(task.toObject().value(QLatin1String("state")).toString(),
                 QStringLiteral("STOPPED"));
    QCOMPARE(job(m_alice, uuid).value(QLatin1String("state")).toString(),
             QStringLiteral("STOPPED"));

    VERIFY_ERROR(
        post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), m_alice, {}), 409, "conflict");
}

// The Paddle client's REST routes: POST /v1/trainer/job submits, DELETE /v1/jobs/<name> stops
// the job (owner-scoped, like every job route).
void tst_ApiJobs::paddleSeedRoutes()
{
    const QString sha256 = uploadBlob(m_alice, someBytes("paddleSeedRoutes", 3000));
    QJsonObject spec{
        {QStringLiteral("kind"), QStringLiteral("openpai")},
        {QStringLiteral("jobName"), QStringLiteral("paddle-alias")},
        {QStringLiteral("image"), QStringLiteral("python3")},
        {QStringLiteral("taskRoles"),
         QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("trainer")},
                                {QStringLiteral("taskNumber"), 1},
                                {QStringLiteral("cpuNumber"), 1},
                                {QStringLiteral("memoryMB"), 512},
                                {QStringLiteral("gpuNumber"), 0},
                                {QStringLiteral("command"), QStringLiteral("true")}}}}};
    const Answer submitted =
        post(QStringLiteral("/v1/trainer/job"), m_alice, submission(spec, sha256));
    VERIFY_STATUS(submitted, 201);
    const QString uuid = submitted.json().value(QLatin1String("uuid")).toString();
    m_jobsToCancel.append({m_alice, uuid});
    QCOMPARE(job(m_alice, QStringLiteral("paddle-alias")).value(QLatin1String("uuid")).toString(),
             uuid);

    VERIFY_ERROR(send("DELETE", QStringLiteral("/v1/jobs/paddle-alias"), m_bob), 404, "not_found");
    const Answer deleted = send("DELETE", QStringLiteral("/v1/jobs/paddle-alias"), m_alice);
    VERIFY_STATUS(deleted, 200);
    QCOMPARE(deleted.json().value(QLatin1String("state")).toString(), QStringLiteral("STOPPED"));
    QCOMPARE(job(m_alice, uuid).value(QLatin1String("state")).toString(),
             QStringLiteral("STOPPED"));
    VERIFY_ERROR(send("DELETE", QStringLiteral("/v1/jobs/paddle-alias"), m_alice), 409, "conflict");
}

void tst_ApiJobs::listPagesAndFilters_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QList<int>>("expected"); // indices of the submitted jobs, in answer order
    QTest::addColumn<int>("total");

    // Jobs 0 "alpha-train" (priority 0), 1 "Beta_eval" (5) and 2 "gamma-train" (-3) are
    // submitted in that order; job 1 is then cancelled. "@1" stands for the start of job 1's uuid.
    QTest::newRow("all") << QString() << QList<int>{2, 1, 0} << 3;
    QTest::newRow("first page") << QStringLiteral("limit=2&offset=0") << QList<int>{2, 1} << 3;
    QTest::newRow("second page") << QStringLiteral("limit=2&offset=2") << QList<int>{0} << 3;
    QTest::newRow("past the end") << QStringLiteral("limit=2&offset=5") << QList<int>{} << 3;
    QTest::newRow("stopped") << QStringLiteral("state=STOPPED") << QList<int>{1} << 1;
    QTest::newRow("waiting") << QStringLiteral("state=WAITING") << QList<int>{2, 0} << 2;
    QTest::newRow("waiting, paged")
        << QStringLiteral("state=WAITING&limit=1&offset=1") << QList<int>{0} << 2;
    QTest::newRow("running") << QStringLiteral("state=RUNNING") << QList<int>{} << 0;
    QTest::newRow("two states, any case")
        << QStringLiteral("state=stopped,Waiting") << QList<int>{2, 1, 0} << 3;
    QTest::newRow("name contains") << QStringLiteral("name=train") << QList<int>{2, 0} << 2;
    QTest::newRow("name in any case") << QStringLiteral("name=TRAIN") << QList<int>{2, 0} << 2;
    QTest::newRow("name with an underscore") << QStringLiteral("name=a_e") << QList<int>{1} << 1;
    QTest::newRow("an underscore is a letter") // as a wildcard it would match "alpha-train"
        << QStringLiteral("name=a_t") << QList<int>{} << 0;
    QTest::newRow("a percent sign is a letter")
        << QStringLiteral("name=%25") << QList<int>{} << 0;
    QTest::newRow("uuid prefix") << QStringLiteral("name=@1") << QList<int>{1} << 1;
    QTest::newRow("name and state")
        << QStringLiteral("name=train&state=WAITING&limit=1") << QList<int>{2} << 2;
    QTest::newRow("by name") << QStringLiteral("sort=name") << QList<int>{0, 1, 2} << 3;
    QTest::newRow("by name, descending")
        << QStringLiteral("sort=name&order=desc") << QList<int>{2, 1, 0} << 3;
    QTest::newRow("by priority") << QStringLiteral("sort=priority") << QList<int>{1, 0, 2} << 3;
    QTest::newRow("by priority, ascending")
        << QStringLiteral("sort=priority&order=asc") << QList<int>{2, 0, 1} << 3;
    QTest::newRow("by priority, paged")
        << QStringLiteral("sort=priority&limit=1&offset=1") << QList<int>{0} << 3;
    QTest::newRow("by state, ties by age")
        << QStringLiteral("sort=state") << QList<int>{1, 0, 2} << 3;
    QTest::newRow("oldest first")
        << QStringLiteral("sort=submitted&order=asc") << QList<int>{0, 1, 2} << 3;
}

void tst_ApiJobs::listPagesAndFilters()
{
    QFETCH(QString, query);
    QFETCH(QList<int>, expected);
    QFETCH(int, total);

    const QString token = newUser(QStringLiteral("lister%1@example.org").arg(++m_users));
    QVERIFY(!token.isEmpty());
    const QString sha256 = uploadBlob(token, someBytes("list", 100));
    QVERIFY(!sha256.isEmpty());
    QStringList uuids;
    const QList<std::pair<QString, int>> jobs{{QStringLiteral("alpha-train"), 0},
                                              {QStringLiteral("Beta_eval"), 5},
                                              {QStringLiteral("gamma-train"), -3}};
    for (const auto &[name, priority] : jobs) {
        uuids << submitJob(token, wireSpec(name), sha256, priority);
        QVERIFY(!uuids.last().isEmpty());
    }
    VERIFY_STATUS(post(QStringLiteral("/v1/jobs/%1/cancel").arg(uuids[1]), token, {}), 200);

    query.replace(QStringLiteral("@1"), uuids[1].left(8));
    const Answer answer = get(QStringLiteral("/v1/jobs"), token, QUrlQuery(query));
    VERIFY_STATUS(answer, 200);
    QCOMPARE(answer.json().value(QLatin1String("total")).toInt(), total);
    QStringList listed;
    for (const QJsonValue &job : answer.json().value(QLatin1String("jobs")).toArray())
        listed << job.toObject().value(QLatin1String("uuid")).toString();
    QStringList wanted;
    for (const int index : std::as_const(expected))
        wanted << uuids[index];
    QCOMPARE(listed, wanted);

    // A state the server does not know is refused, not an empty list.
    const Answer bad =
        get(QStringLiteral("/v1/jobs"), token, QUrlQuery(QStringLiteral("state=DONE")));
    VERIFY_ERROR(bad, 400, "bad_request");
    QCOMPARE(bad.error().value(QLatin1String("field")).toString(), QStringLiteral("state"));
    // So are a sort key and an order it does not know, naming what it takes.
    for (const auto &[asked, field] :
         {std::pair{QStringLiteral("sort=size"), QStringLiteral("sort")},
          std::pair{QStringLiteral("state=WAITING,DONE"), QStringLiteral("state")},
          std::pair{QStringLiteral("sort=name&order=up"), QStringLiteral("order")}}) {
        const Answer refused = get(QStringLiteral("/v1/jobs"), token, QUrlQuery(asked));
        VERIFY_ERROR(refused, 400, "bad_request");
        QCOMPARE(refused.error().value(QLatin1String("field")).toString(), field);
    }
    const Answer sortRefused =
        get(QStringLiteral("/v1/jobs"), token, QUrlQuery(QStringLiteral("sort=size")));
    QVERIFY(sortRefused.error().value(QLatin1String("message")).toString().contains(
        QLatin1String("submitted, name, state, priority, started, finished")));
}

void tst_ApiJobs::invalidSpecListsEveryError()
{
    const QString sha256 = uploadBlob(m_alice, someBytes("invalid", 100));
    QVERIFY(!sha256.isEmpty());
    QJsonObject spec = wireSpec(QStringLiteral("bad job"), -1);
    QJsonArray roles = spec.value(QLatin1String("taskRoles")).toArray();
    QJsonObject role = roles.at(0).toObject();
    role.insert(QStringLiteral("gpuNumber"), -1);
    role.insert(QStringLiteral("taskNumber"), 0);
    roles[0] = role;
    spec.insert(QStringLiteral("taskRoles"), roles);
    const qint64 before =
        get(QStringLiteral("/v1/jobs"), m_alice).json().value(QLatin1String("total")).toInteger();

    const Answer answer = post(QStringLiteral("/v1/jobs"), m_alice, submission(spec, sha256));
    QCOMPARE(answer.status, 400);
    const QJsonObject error = answer.error();
    QCOMPARE(error.value(QLatin1String("code")).toString(), QStringLiteral("invalid_spec"));
    QVERIFY(!error.value(QLatin1String("message")).toString().isEmpty());
    QSet<QString> fields;
    for (const QJsonValue &entry : error.value(QLatin1String("errors")).toArray()) {
        const QJsonObject item = entry.toObject();
        QVERIFY2(!item.value(QLatin1String("message")).toString().isEmpty(),
                 qPrintable(QString::fromUtf8(answer.body)));
        fields.insert(item.value(QLatin1String("field")).toString());
    }
    const QSet<QString> expected{QStringLiteral("jobName"),
                                 QStringLiteral("retryCount"),
                                 QStringLiteral("taskRoles[0].taskNumber"),
                                 QStringLiteral("taskRoles[0].gpuNumber")};
    QVERIFY2(fields == expected, answer.body.constData());

    // Nothing was stored.
    QCOMPARE(
        get(QStringLiteral("/v1/jobs"), m_alice).json().value(QLatin1String("total")).toInteger(),
        before);
}

void tst_ApiJobs::openPaiConfigSubmittedAsWritten_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("expected"); // the job's name, or the first error's field
    QTest::addColumn<QStringList>("eventFields");

    QTest::newRow("v1 JSON with comments")
        << QStringLiteral("{\n  // written by hand\n  \"jobName\": \"v1-config\", \"image\": "
                          "\"ubuntu\", \"virtualCluster\": \"default\", /* no effect */\n"
                          "  \"taskRoles\": [{\"name\": \"main\", \"taskNumber\": 1, "
                          "\"cpuNumber\": 1, \"memoryMB\": 256, \"gpuNumber\": 0, "
                          "\"command\": \"echo http://x // y\"}]}")
        << 201 << QStringLiteral("v1-config")
        << QStringList{QStringLiteral("image"), QStringLiteral("virtualCluster")};
    QTest::newRow("protocol v2 YAML")
        << QStringLiteral("protocolVersion: 2\nname: v2-config\ntype: job\nprerequisites:\n"
                          "  - {name: img, type: dockerimage, uri: ubuntu}\n"
                          "parameters: {word: hi}\ntaskRoles:\n  main:\n    dockerImage: img\n"
                          "    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n"
                          "    commands: ['echo <% $parameters.word %>']\n")
        << 201 << QStringLiteral("v2-config") << QStringList{QStringLiteral("image")};
    QTest::newRow("v2 error names the v2 field")
        << QStringLiteral("protocolVersion: 2\nname: bad\ntype: job\nprerequisites:\n"
                          "  - {name: img, type: dockerimage, uri: ubuntu}\n"
                          "taskRoles:\n  main:\n    dockerImage: img\n"
                          "    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: -1}\n"
                          "    commands: [echo]\n")
        << 400 << QStringLiteral("taskRoles.main.resourcePerInstance.gpu") << QStringList();
    QTest::newRow("neither JSON nor v2")
        << QStringLiteral("job_data: {}\n") << 400 << QString() << QStringList();
}

void tst_ApiJobs::openPaiConfigSubmittedAsWritten()
{
    QFETCH(QString, config);
    QFETCH(int, status);
    QFETCH(QString, expected);
    QFETCH(QStringList, eventFields);

    const Answer answer =
        post(QStringLiteral("/v1/jobs"), m_alice, QJsonObject{{QStringLiteral("config"), config}});
    QVERIFY2(answer.status == status, qPrintable(answer.describe()));
    if (status != 201) {
        const QJsonObject error = answer.error();
        QCOMPARE(error.value(QLatin1String("code")).toString(), QStringLiteral("invalid_spec"));
        QCOMPARE(error.value(QLatin1String("field")).toString(), expected);
        return;
    }
    const QJsonObject job = answer.json();
    QCOMPARE(job.value(QLatin1String("name")).toString(), expected);
    QCOMPARE(job.value(QLatin1String("kind")).toString(), QStringLiteral("openpai"));
    QStringList fields;
    for (const QJsonValue &event : job.value(QLatin1String("events")).toArray())
        fields << event.toObject().value(QLatin1String("message")).toString().section(u':', 0, 0);
    QCOMPARE(fields, eventFields);
    // Cancelled, so that no later test's worker is given its task.
    VERIFY_STATUS(
        post(QStringLiteral("/v1/jobs/%1/cancel").arg(job.value(QLatin1String("uuid")).toString()),
             m_alice,
             QJsonObject()),
        200);

    // A config comes alone: not beside a spec, and as text.
    VERIFY_ERROR(post(QStringLiteral("/v1/jobs"),
                      m_alice,
                      QJsonObject{{QStringLiteral("config"), config},
                                  {QStringLiteral("spec"), job.value(QLatin1String("spec"))}}),
                 400,
                 "bad_request");
    VERIFY_ERROR(post(QStringLiteral("/v1/jobs"),
                      m_alice,
                      QJsonObject{{QStringLiteral("config"), QJsonObject()}}),
                 400,
                 "bad_request");
}

void tst_ApiJobs::submissionNeedsOwnBlobs_data()
{
    QTest::addColumn<QString>("package"); // "own", "bob's", "never", "garbage", "none"
    QTest::addColumn<QString>("dataset"); // the same, "none" for null
    QTest::addColumn<QString>("field");

    QTest::newRow("package never uploaded")
        << QStringLiteral("never") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("package of another user")
        << QStringLiteral("bob's") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("package not a digest")
        << QStringLiteral("garbage") << QStringLiteral("none") << QStringLiteral("package.sha256");
    QTest::newRow("no package") << QStringLiteral("none") << QStringLiteral("none")
                                << QStringLiteral("package");
    QTest::newRow("dataset never uploaded")
        << QStringLiteral("own") << QStringLiteral("never") << QStringLiteral("dataset.sha256");
    QTest::newRow("dataset of another user")
        << QStringLiteral("own") << QStringLiteral("bob's") << QStringLiteral("dataset.sha256");
}

void tst_ApiJobs::submissionNeedsOwnBlobs()
{
    QFETCH(QString, package);
    QFETCH(QString, dataset);
    QFETCH(QString, field);

    const QString own = uploadBlob(m_alice, someBytes("alice's own", 64));
    const QString bobs = uploadBlob(m_bob, someBytes("bob's own", 64));
    QVERIFY(!own.isEmpty());
    QVERIFY(!bobs.isEmpty());
    const auto blob = [&](const QString &which) -> QJsonValue {
        if (which == QLatin1String("none"))
            return QJsonValue();
        QString sha256 = which == QLatin1String("own")     ? own
                         : which == QLatin1String("bob's") ? bobs
                         : which == QLatin1String("never") ? sha256Of("never uploaded")
                                                           : QStringLiteral("not-a-digest");
        return QJsonObject{{QStringLiteral("sha256"), sha256},
                           {QStringLiteral("commit"), QStringLiteral("0123abcd")}};
    };
    const QJsonObject request{{QStringLiteral("spec"), wireSpec(QStringLiteral("blobs"))},
                              {QStringLiteral("package"), blob(package)},
                              {QStringLiteral("dataset"), blob(dataset)}};
    const Answer answer = post(QStringLiteral("/v1/jobs"), m_alice, request);
    VERIFY_ERROR(answer, 400, "bad_request");
    QCOMPARE(answer.error().value(QLatin1String("field")).toString(), field);
}

void tst_ApiJobs::otherUserSeesNothing()
{
    const QString sha256 = uploadBlob(m_alice, someBytes("private", 100));
    const QString uuid = submitJob(m_alice, wireSpec(QStringLiteral("private")), sha256);
    QVERIFY(!uuid.isEmpty());
    const qint64 taskId = taskIdsOf(job(m_alice, uuid), 1).at(0).toInteger();
    QVERIFY(taskId > 0);

    // Bob gets exactly what a job that does not exist gives: 404, for every way in.
    const QList<std::tuple<QByteArray, QString, QString>> requests{
        {"GET", QStringLiteral("/v1/jobs/%1").arg(uuid), QString()},
        {"POST", QStringLiteral("/v1/jobs/%1/cancel").arg(uuid), QString()},
        {"GET",
         QStringLiteral("/v1/jobs/%1/logs").arg(uuid),
         QStringLiteral("task=%1&offset=0").arg(taskId)},
        {"GET", QStringLiteral("/v1/jobs/%1/artifacts").arg(uuid), QString()},
        {"GET",
         QStringLiteral("/v1/jobs/%1/artifacts/file").arg(uuid),
         QStringLiteral("path=out.txt")},
    };
    for (const auto &[verb, path, query] : requests) {
        const Answer answer = send(
            verb, path, m_bob, verb == "POST" ? QByteArray("{}") : QByteArray(), QUrlQuery(query));
        const QString problem = errorProblem(answer, 404, QStringLiteral("not_found"));
        QVERIFY2(problem.isEmpty(), qPrintable(path + QStringLiteral(": ") + problem));
        QVERIFY2(!answer.body.contains(sha256.toUtf8()), answer.body.constData());
    }
    const Answer list = get(QStringLiteral("/v1/jobs"), m_bob);
    VERIFY_STATUS(list, 200);
    for (const QJsonValue &job : list.json().value(QLatin1String("jobs")).toArray())
        QVERIFY(job.toObject().value(QLatin1String("uuid")).toString() != uuid);

    // Bob's attempt to cancel changed nothing.
    QCOMPARE(job(m_alice, uuid).value(QLatin1String("state")).toString(),
             QStringLiteral("WAITING"));
}

QTEST_GUILESS_MAIN(tst_ApiJobs)
#include "tst_api_jobs.moc"
