// The owner's cap on a task's disk use (--task-disk-limit), end to end with the real ddl-server,
// ddl-worker and ddlcli as processes: a task that writes more than the limit into its folder
// fails within a few seconds with a message that names the limit, while one that stays under it
// succeeds; the dataset's hard links to the worker's cache do not count.
#include "clusterharness.h"
#include "polluntil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr char User[] = "alice";
constexpr char Worker[] = "small-disk";

} // namespace

class TestE2eDiskCap : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void taskOverTheLimitFails();
    void taskUnderTheLimitSucceeds();

private:
    QString submit(const QString &name, const QString &command);
    QString diagnostics(const QString &uuid);

    ClusterHarness m_cluster;
};

void TestE2eDiskCap::initTestCase()
{
    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.startNamedWorker(
        QString::fromLatin1(Worker),
        {u"--task-disk-limit"_s, u"4M"_s, u"--gpus"_s, u"0"_s, u"--sample-interval"_s, u"0"_s}));
    QVERIFY2(pollUntil([&] { return m_cluster.serverLog().contains(u"enrolled from"_s); }, 15000),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    QVERIFY2(m_cluster.workerLog(QString::fromLatin1(Worker))
                 .contains(u"a task whose folder holds more than 4.0 MiB fails"_s),
             qPrintable(m_cluster.workerLog(QString::fromLatin1(Worker))));
    QVERIFY(m_cluster.registerAndLogin(QString::fromLatin1(User), u"alice-password"_s));
}

QString TestE2eDiskCap::submit(const QString &name, const QString &command)
{
    const CliRun submitted = m_cluster.submitJobJson(
        QString::fromLatin1(User),
        name,
        openPaiJob(name, {{u"main"_s, 1, 0, command}}, {{u"retryCount"_s, 0}}));
    return jobUuidOf(submitted.out);
}

QString TestE2eDiskCap::diagnostics(const QString &uuid)
{
    return QString::fromUtf8(
               QJsonDocument(m_cluster.job(QString::fromLatin1(User), uuid)).toJson()) +
           u"\n--- worker ---\n"_s + m_cluster.workerLog(QString::fromLatin1(Worker)).right(3000);
}

void TestE2eDiskCap::taskOverTheLimitFails()
{
    // 6 MiB into its scratch folder (its HOME), then it would run for ever.
    const QString uuid =
        submit(u"greedy"_s,
               u"head -c 6291456 /dev/zero > \"$HOME/big\"; while true; do sleep 0.2; done"_s);
    QVERIFY(!uuid.isEmpty());
    const QString state = m_cluster.waitForJobEnd(QString::fromLatin1(User), uuid, 60000);
    QVERIFY2(state == "FAILED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
    const QJsonObject job = m_cluster.job(QString::fromLatin1(User), uuid);
    const QJsonObject task = job.value(u"tasks"_s).toArray().first().toObject();
    QVERIFY2(task.value(u"message"_s)
                     .toString()
                     .contains(u"the task's folder holds more than 4.0 MiB"_s) &&
                 task.value(u"message"_s).toString().contains(u"task_disk_limit"_s),
             qPrintable(diagnostics(uuid)));
}

void TestE2eDiskCap::taskUnderTheLimitSucceeds()
{
    const QString uuid =
        submit(u"modest"_s, u"head -c 1048576 /dev/zero > \"$HOME/small\"; sleep 7; echo done"_s);
    QVERIFY(!uuid.isEmpty());
    const QString state = m_cluster.waitForJobEnd(QString::fromLatin1(User), uuid, 60000);
    QVERIFY2(state == "SUCCEEDED"_L1, qPrintable(state + u'\n' + diagnostics(uuid)));
}

QTEST_GUILESS_MAIN(TestE2eDiskCap)
#include "tst_e2e_diskcap.moc"
