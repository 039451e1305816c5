// The owner changes their policy while the worker runs (docs/owners.md), end to end with the
// real ddl-server, ddl-worker and ddlcli as processes: saving the worker's config file with
// hours that exclude now preempts the running task; a config that does not parse is refused with
// a log line and the running policy kept; saving one without hours lets the job run again (with
// the new preemption notice); SIGHUP re-reads the file too, and no longer ends the worker.
#include "clusterharness.h"
#include "polluntil.h"

#include <QDate>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

namespace {

constexpr char User[] = "alice";
constexpr char Worker[] = "owners-box";

constexpr char Command[] = "trap 'echo got SIGTERM; exit 143' TERM; "
                           "echo attempt=$DDL_TASK_ATTEMPT notice=$DDL_PREEMPT_NOTICE_S; "
                           "if [ \"$DDL_TASK_ATTEMPT\" -gt 1 ]; then exit 0; fi; "
                           "while true; do sleep 0.2; done";

// Saved as editors do: a new file renamed over the old one.
bool save(const QString &path, const QByteArray &content)
{
    QFile file(path + u".new"_s);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
        return false;
    file.close();
    return ::rename(QFile::encodeName(path + u".new"_s).constData(),
                    QFile::encodeName(path).constData()) == 0;
}

} // namespace

class TestE2eOwnerReload : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void policyChangesApplyWithoutRestart();

private:
    QString logs(const QString &uuid);
    QString workerLog() const { return m_cluster.workerLog(QString::fromLatin1(Worker)); }
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
    QString m_config;
};

void TestE2eOwnerReload::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    m_config = m_cluster.path(u"owner.yaml"_s);
    QVERIFY(save(m_config, "preempt_notice: 5\n"));
    QVERIFY(m_cluster.startNamedWorker(QString::fromLatin1(Worker),
                                       {u"--config"_s,
                                        m_config,
                                        u"--slots"_s,
                                        u"1"_s,
                                        u"--gpus"_s,
                                        u"0"_s,
                                        u"--sample-interval"_s,
                                        u"0"_s}));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(workerLog()));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2eOwnerReload::logs(const QString &uuid)
{
    return m_cluster.jobLogs(QString::fromLatin1(User), uuid);
}

QString TestE2eOwnerReload::diagnostics(const QString &uuid)
{
    return m_cluster.jobDiagnostics(QString::fromLatin1(User), uuid, {QString::fromLatin1(Worker)});
}

void TestE2eOwnerReload::policyChangesApplyWithoutRestart()
{
    const QString user = QString::fromLatin1(User);
    const CliRun submitted =
        m_cluster.submitJobJson(user, u"reload"_s, openPaiJob(u"changing-owner"_s,
                                        {{u"main"_s, 1, 0, QString::fromLatin1(Command)}},
                                        {{u"retryCount"_s, 0}}));
    const QString uuid = jobUuidOf(submitted.out);
    QVERIFY2(!uuid.isEmpty(), qPrintable(submitted.out + submitted.err));
    QVERIFY2(pollUntil([&] { return logs(uuid).contains(u"attempt=1 notice=5"_s); }, 30000),
             qPrintable(diagnostics(uuid)));

    // The owner lends the machine only on the day after tomorrow from now on.
    static const char *const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    const QByteArray day = days[QDate::currentDate().addDays(2).dayOfWeek() - 1];
    QVERIFY(save(m_config, "preempt_notice: 5\navailable: \"" + day + "\"\n"));
    QJsonObject job;
    QVERIFY2(pollUntil(
                 [&] {
                     job = m_cluster.job(user, uuid);
                     return job.value(u"state"_s).toString() == "WAITING"_L1 &&
                            job.value(u"preemptions"_s).toInt() >= 1;
                 },
                 30000),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(job.value(u"reason"_s)
                 .toString()
                 .contains(u"outside the hours the owner lends the machine ("_s +
                           QString::fromLatin1(day)),
             qPrintable(diagnostics(uuid)));
    QVERIFY2(workerLog().contains(u"owner.yaml changed: the owner's settings were applied"_s),
             qPrintable(workerLog()));
    QCOMPARE(job.value(u"retry_count"_s).toInt(), 0);

    // A config that does not parse is refused, saying why; the running policy stays.
    QVERIFY(save(m_config, "available: weekends\n"));
    QVERIFY2(pollUntil(
                 [&] {
                     return workerLog().contains(
                         u"the config was not applied, the running one stays"_s);
                 },
                 10000),
             qPrintable(workerLog()));
    QVERIFY2(workerLog().contains(u"'available' the window 'weekends'"_s), qPrintable(workerLog()));
    QVERIFY2(pollUntil(
                 [&] {
                     return m_cluster.job(user, uuid)
                         .value(u"reason"_s)
                         .toString()
                         .contains(u"in use by its owner"_s);
                 },
                 15000),
             qPrintable(diagnostics(uuid)));
    QCOMPARE(m_cluster.job(user, uuid).value(u"state"_s).toString(), u"WAITING"_s);

    // Any hour again, with a longer notice: the job runs again and succeeds.
    QVERIFY(save(m_config, "preempt_notice: 7\n"));
    const QString state = m_cluster.waitForJobEnd(user, uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    QVERIFY2(logs(uuid).contains(u"notice=7"_s), qPrintable(diagnostics(uuid)));

    // SIGHUP re-reads the file; the worker goes on.
    const qint64 pid = m_cluster.namedWorkerPid(QString::fromLatin1(Worker));
    QVERIFY(pid > 0);
    QCOMPARE(::kill(pid_t(pid), SIGHUP), 0);
    QVERIFY2(
        pollUntil(
            [&] { return workerLog().contains(u"SIGHUP: the owner's settings were applied"_s); },
            10000),
        qPrintable(workerLog()));
    QCOMPARE(m_cluster.namedWorkerPid(QString::fromLatin1(Worker)), pid);
}

QTEST_GUILESS_MAIN(TestE2eOwnerReload)
#include "tst_e2e_ownerreload.moc"
