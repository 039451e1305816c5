// The contribution ledger (docs/api.md, "Contribution ledger"; docs/owners.md): what a worker
// gave is written as its task attempts end and as it moves bytes, counted once however often an
// end is reported, and read only by the worker's owner and the worker itself. Against the
// in-process server of ServerApiTestCase, over real TLS on loopback.
#include "serverapitestcase.h"

#include "app/tokencommand.h"
#include "store/database.h"
#include "wire/contributionledger.h"
#include "workers/ledgerstore.h"

#include <QThread>

using namespace Qt::StringLiterals;
using namespace ddl;
using namespace ddl::server;

class tst_ApiLedger : public ServerApiTestCase
{
    Q_OBJECT

private slots:
    void gpuTaskCountsOnceForItsOwner();
    void preemptionCounts();
    void workerWithoutOwnerReadsItsOwn();
    void badPeriodIsRefused();
    void onlyNewlyStoredBytesCount();

private:
    // A worker enrolled with a token made for ownerEmail (empty: nobody's), with GPUs.
    Worker enrollOwned(const QString &name, const QString &ownerEmail, int gpus);
    // Submits a job of one task (gpus GPUs, cpus cores) for user and leases it to worker.
    qint64 leaseOneTask(const QString &user,
                        const Worker &worker,
                        const QByteArray &package,
                        int gpus,
                        int cpus,
                        QString *uuid = nullptr);
    WorkerLedger ledgerOf(const Worker &worker, const QString &token);
};

Worker tst_ApiLedger::enrollOwned(const QString &name, const QString &ownerEmail, int gpus)
{
    const Result<QString> token = createEnrollToken(m_dataDir, m_database, ownerEmail);
    if (!token) {
        qWarning("token create: %s", qPrintable(token.error().message));
        return {};
    }
    const Answer answer = post(u"/v1/workers/enroll"_s,
                               {},
                               {{u"enroll_token"_s, *token},
                                {u"name"_s, name},
                                {u"hostname"_s, QString(name + u".local"_s)},
                                {u"cpus"_s, 8},
                                {u"memory_mb"_s, 16384},
                                {u"gpus"_s, gpus},
                                {u"slots"_s, 2}});
    if (answer.status != 201) {
        qWarning("enroll: %s", qPrintable(answer.describe()));
        return {};
    }
    const Worker worker{answer.json().value(u"worker_id"_s).toInteger(),
                        answer.json().value(u"worker_token"_s).toString()};
    m_workersToRetire.append(worker);
    return worker;
}

qint64 tst_ApiLedger::leaseOneTask(const QString &user,
                                   const Worker &worker,
                                   const QByteArray &package,
                                   int gpus,
                                   int cpus,
                                   QString *uuid)
{
    QJsonObject spec = wireSpec(u"ledger"_s);
    QJsonArray roles = spec.value(u"taskRoles"_s).toArray();
    QJsonObject role = roles.at(0).toObject();
    role.insert(u"gpuNumber"_s, gpus);
    role.insert(u"cpuNumber"_s, cpus);
    roles.replace(0, role);
    spec.insert(u"taskRoles"_s, roles);
    const QString job = submitJob(user, spec, uploadBlob(user, package));
    if (uuid)
        *uuid = job;
    const QJsonArray tasks = lease(worker);
    if (tasks.size() != 1 || tasks.at(0).toObject().value(u"job_uuid"_s).toString() != job) {
        qWarning("expected one lease of job %s, got %s",
                 qPrintable(job),
                 QJsonDocument(tasks).toJson().constData());
        return 0;
    }
    return tasks.at(0).toObject().value(u"task_id"_s).toInteger();
}

WorkerLedger tst_ApiLedger::ledgerOf(const Worker &worker, const QString &token)
{
    const Answer answer = get(u"/v1/workers/%1/ledger"_s.arg(worker.id), token);
    if (answer.status != 200)
        qWarning("ledger: %s", qPrintable(answer.describe()));
    return WorkerLedger::fromJson(answer.json());
}

void tst_ApiLedger::gpuTaskCountsOnceForItsOwner()
{
    const QString ownerEmail = u"ledger-owner@example.org"_s;
    const QString owner = newUser(ownerEmail);
    const QString user = newUser(u"ledger-user@example.org"_s);
    QVERIFY(!owner.isEmpty() && !user.isEmpty());
    const Worker worker = enrollOwned(u"ledger-gpu"_s, ownerEmail, 2);
    const Worker stranger = enrollOwned(u"ledger-stranger"_s, {}, 0);
    QVERIFY(worker.id > 0 && stranger.id > 0);

    // The worker fetches the job's code (one blob of 50,000 bytes), runs the task on one GPU
    // and three cores for a little over a second, sends 100 bytes of log and uploads an output.
    const QByteArray package = someBytes("ledger-package", 50000);
    const qint64 taskId = leaseOneTask(user, worker, package, 1, 3);
    QVERIFY(taskId > 0);
    const Answer code = get(u"/v1/workers/blobs/"_s + sha256Of(package), worker.token);
    VERIFY_STATUS(code, 200);
    QCOMPARE(code.body.size(), package.size());
    VERIFY_STATUS(reportState(worker, taskId, u"RUNNING"_s), 200);
    QThread::msleep(1200);
    VERIFY_STATUS(sendLogBatch(worker, taskId, {0, u"o100"_s, 0, 0}, QByteArray(100, 'x')), 200);
    // Its output: one blob of 20,000 bytes, uploaded with the worker's token.
    const QByteArray output = someBytes("ledger-output", 20000);
    QCOMPARE(uploadBlob(worker.token, output), sha256Of(output));
    VERIFY_STATUS(reportState(worker, taskId, u"SUCCEEDED"_s, 0), 200);

    const WorkerLedger first = ledgerOf(worker, owner);
    QCOMPARE(first.workerId, QString::number(worker.id));
    QCOMPARE(first.name, u"ledger-gpu"_s);
    QCOMPARE(first.owner, ownerEmail);
    QCOMPARE(first.totals.tasksRun, 1);
    QCOMPARE(first.totals.tasksSucceeded, 1);
    QCOMPARE(first.totals.tasksFailed, 0);
    QCOMPARE(first.totals.jobs, 1);
    QCOMPARE(first.totals.preemptions, 0);
    QVERIFY2(first.totals.gpuSeconds >= 1.2 && first.totals.gpuSeconds < 60,
             qPrintable(QString::number(first.totals.gpuSeconds)));
    // The same wall time, three cores instead of one GPU.
    QCOMPARE(first.totals.cpuCoreSeconds, 3 * first.totals.gpuSeconds);
    QCOMPARE(first.totals.bytesDownloaded, package.size());
    QCOMPARE(first.totals.bytesUploaded, 100 + output.size());

    // The end reported again: refused as a stale lease, and counted once still; written into
    // the ledger again (as a race of two ends would): nothing changes.
    VERIFY_ERROR(reportState(worker, taskId, u"SUCCEEDED"_s, 0), 409, "conflict");
    {
        Result<QSqlDatabase> db = Database::open(m_dataDir, u"tst-ledger"_s, m_database);
        QVERIFY2(db, db ? "" : qPrintable(db.error().message));
        QVERIFY(LedgerStore(*db).recordTaskEnd(taskId, false));
    }
    QCOMPARE(ledgerOf(worker, owner).totals, first.totals);

    // The worker reads its own; nobody else's worker, and no other user, reads it.
    QCOMPARE(ledgerOf(worker, worker.token).totals, first.totals);
    VERIFY_ERROR(get(u"/v1/workers/%1/ledger"_s.arg(worker.id), user), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/workers/%1/ledger"_s.arg(worker.id), stranger.token), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/workers/%1/ledger"_s.arg(worker.id), {}), 401, "unauthorized");
    VERIFY_ERROR(get(u"/v1/workers/nine/ledger"_s, owner), 404, "not_found");
    VERIFY_ERROR(get(u"/v1/workers/999999/ledger"_s, owner), 404, "not_found");

    // The owner's summary holds their worker, and sums it.
    const Answer summary = get(u"/v1/ledger"_s, owner);
    VERIFY_STATUS(summary, 200);
    const OwnerLedger ownerLedger = OwnerLedger::fromJson(summary.json());
    QCOMPARE(ownerLedger.workers.size(), 1);
    QCOMPARE(ownerLedger.workers.first().workerId, QString::number(worker.id));
    QCOMPARE(ownerLedger.total, first.totals);
    const OwnerLedger none = OwnerLedger::fromJson(get(u"/v1/ledger"_s, user).json());
    QVERIFY(none.workers.isEmpty());
    QCOMPARE(none.total, LedgerTotals());

    // A period that ends before the task ended holds none of it.
    QUrlQuery before;
    before.addQueryItem(u"until"_s, u"2020-01-01T00:00:00Z"_s);
    const Answer early = get(u"/v1/workers/%1/ledger"_s.arg(worker.id), owner, before);
    VERIFY_STATUS(early, 200);
    QCOMPARE(WorkerLedger::fromJson(early.json()).totals, LedgerTotals());
}

void tst_ApiLedger::preemptionCounts()
{
    const QString ownerEmail = u"ledger-preempted@example.org"_s;
    const QString owner = newUser(ownerEmail);
    const QString user = newUser(u"ledger-preempter@example.org"_s);
    const Worker worker = enrollOwned(u"ledger-preempt"_s, ownerEmail, 1);
    QVERIFY(worker.id > 0);
    QString uuid;
    const qint64 taskId =
        leaseOneTask(user, worker, someBytes("ledger-preempt", 1000), 1, 1, &uuid);
    QVERIFY(taskId > 0);
    VERIFY_STATUS(reportState(worker, taskId, u"RUNNING"_s), 200);
    VERIFY_STATUS(post(u"/v1/workers/tasks/%1/state"_s.arg(taskId),
                       worker.token,
                       {{u"state"_s, u"STOPPED"_s},
                        {u"preempted"_s, true},
                        {u"message"_s, u"the owner is using the GPU"_s}}),
                  200);
    const WorkerLedger ledger = ledgerOf(worker, owner);
    QCOMPARE(ledger.totals.tasksRun, 1);
    QCOMPARE(ledger.totals.preemptions, 1);
    QCOMPARE(ledger.totals.tasksSucceeded, 0);
    QCOMPARE(ledger.totals.tasksFailed, 0);
    QCOMPARE(job(user, uuid).value(u"preemptions"_s).toInt(), 1);
}

void tst_ApiLedger::workerWithoutOwnerReadsItsOwn()
{
    const QString user = newUser(u"ledger-nobody@example.org"_s);
    const Worker worker = enrollOwned(u"ledger-unowned"_s, {}, 0);
    QVERIFY(worker.id > 0);
    const WorkerLedger ledger = ledgerOf(worker, worker.token);
    QCOMPARE(ledger.workerId, QString::number(worker.id));
    QVERIFY(ledger.owner.isEmpty());
    QCOMPARE(ledger.totals, LedgerTotals());
    VERIFY_ERROR(get(u"/v1/workers/%1/ledger"_s.arg(worker.id), user), 404, "not_found");
    // A token for an owner the server does not know is refused, naming the email.
    const Result<QString> token =
        createEnrollToken(m_dataDir, m_database, u"nobody-here@example.org"_s);
    QVERIFY(!token);
    QVERIFY2(token.error().message.contains(u"nobody-here@example.org"_s),
             qPrintable(token.error().message));
}

void tst_ApiLedger::badPeriodIsRefused()
{
    const QString owner = newUser(u"ledger-period@example.org"_s);
    QUrlQuery query;
    query.addQueryItem(u"since"_s, u"last tuesday"_s);
    const Answer answer = get(u"/v1/ledger"_s, owner, query);
    VERIFY_ERROR(answer, 400, "bad_request");
    QCOMPARE(answer.error().value(u"field"_s).toString(), u"since"_s);
}

void tst_ApiLedger::onlyNewlyStoredBytesCount()
{
    const QString ownerEmail = u"ledger-resend@example.org"_s;
    const QString owner = newUser(ownerEmail);
    const QString user = newUser(u"ledger-resend-user@example.org"_s);
    QVERIFY(!owner.isEmpty() && !user.isEmpty());
    const Worker worker = enrollOwned(u"ledger-resend"_s, ownerEmail, 0);
    QVERIFY(worker.id > 0);
    const QByteArray package = someBytes("ledger-resend-package", 30000);
    const qint64 taskId = leaseOneTask(user, worker, package, 0, 1);
    QVERIFY(taskId > 0);
    VERIFY_STATUS(reportState(worker, taskId, u"RUNNING"_s), 200);

    // A log batch sent twice (the worker missed the first answer) is stored once, counted once;
    // one that overlaps the stored end counts its new tail.
    const QByteArray log(100, 'x');
    VERIFY_STATUS(sendLogBatch(worker, taskId, {0, u"o100"_s, 0, 0}, log), 200);
    VERIFY_STATUS(sendLogBatch(worker, taskId, {0, u"o100"_s, 0, 0}, log), 200);
    VERIFY_STATUS(sendLogBatch(worker, taskId, {50, u"o80"_s, 50, 0}, QByteArray(80, 'y')), 200);
    QCOMPARE(ledgerOf(worker, owner).totals.bytesUploaded, qint64(130));

    // Bytes the server already holds (the job's package, stored by its user) sent again by the
    // worker: nothing new is stored, nothing is counted.
    QCOMPARE(uploadBlob(worker.token, package), sha256Of(package));
    QCOMPARE(ledgerOf(worker, owner).totals.bytesUploaded, qint64(130));

    // A batch of one blob the server holds and one it does not: only the new one counts.
    const QByteArray held = package.left(500);
    QCOMPARE(uploadBlob(user, held), sha256Of(held));
    const QByteArray fresh = someBytes("ledger-resend-fresh", 700);
    QByteArray batch;
    for (const QByteArray &blob : {held, fresh})
        batch += sha256Of(blob).toLatin1() + ' ' + QByteArray::number(blob.size()) + '\n' + blob;
    const auto sendBatch = [&] {
        return send("POST", u"/v1/blobs/batch"_s, worker.token, batch, {},
                    "application/octet-stream");
    };
    VERIFY_STATUS(sendBatch(), 200);
    QCOMPARE(ledgerOf(worker, owner).totals.bytesUploaded, qint64(130) + fresh.size());
    // The same batch again: all held now.
    VERIFY_STATUS(sendBatch(), 200);
    QCOMPARE(ledgerOf(worker, owner).totals.bytesUploaded, qint64(130) + fresh.size());
}

QTEST_MAIN(tst_ApiLedger)
#include "tst_api_ledger.moc"
