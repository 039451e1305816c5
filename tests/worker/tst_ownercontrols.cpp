// The pieces of the owner's controls (docs/owners.md) on real files and processes: which GPU
// processes count when some GPUs are lent (rows as an H100's nvidia-smi prints them), how lent
// GPUs are picked and how the server's booked positions map onto them, when the owner last
// touched a terminal (files whose times the test sets, in place of /dev/pts/N), the policy
// turning on such input and on new rules while it runs, and how a task's folder is measured.
#include "gpu/computeapps.h"
#include "owner/gpulending.h"
#include "owner/inputactivity.h"
#include "owner/ownerpolicy.h"
#include "owner/taskdiskwatch.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

namespace {

bool writeFile(const QString &path, qint64 bytes, const QDateTime &at = {})
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QByteArray(bytes, 'x')) != bytes)
        return false;
    return !at.isValid() || (file.setFileTime(at, QFileDevice::FileAccessTime) &&
                             file.setFileTime(at, QFileDevice::FileModificationTime));
}

QList<GpuInfo> threeGpus()
{
    return {{0, u"H100"_s, 81559, u"GPU-aaaa"_s},
            {1, u"H100"_s, 81559, u"GPU-bbbb"_s},
            {2, u"H100"_s, 81559, u"GPU-cccc"_s}};
}

} // namespace

class TestOwnerControls : public QObject
{
    Q_OBJECT

private slots:
    void computeAppsAsNvidiaSmiPrintsThem();
    void lentGpusByIndexOrUuid();
    void unknownLentGpuListsTheMachinesGpus();
    void bookedPositionsMapToLentGpus();
    void newestTouchedInputWins();
    void policyRefusesWhileInputIsRecentAndFollowsNewRules();
    void folderBytesLeaveTheDatasetOutAndStopAtTheLimit();
    void diskWatchReportsATaskOverANewLimit();
};

void TestOwnerControls::computeAppsAsNvidiaSmiPrintsThem()
{
    // What `nvidia-smi --query-compute-apps=pid,gpu_uuid --format=csv,noheader` printed on an H100
    // with a CUDA context open, and lines that are no process.
    const QList<ComputeApp> apps = parseComputeApps(
        "478, GPU-8912d640-82a1-c508-b441-02b46d3e5116\nNo running processes found\n\n0, GPU-x\n");
    QCOMPARE(apps, (QList<ComputeApp>{{478, u"GPU-8912d640-82a1-c508-b441-02b46d3e5116"_s}}));
}

void TestOwnerControls::lentGpusByIndexOrUuid()
{
    const auto lent = selectLentGpus(threeGpus(), {u"gpu-cccc"_s, u"0"_s, u"2"_s});
    QVERIFY(lent);
    QCOMPARE(lent->size(), 2);
    QCOMPARE(lent->at(0).index, 0); // in nvidia-smi's order, each once
    QCOMPARE(lent->at(1).uuid, u"GPU-cccc"_s);
    QCOMPARE(selectLentGpus(threeGpus(), {})->size(), 3); // nothing named: every GPU
}

void TestOwnerControls::unknownLentGpuListsTheMachinesGpus()
{
    const auto lent = selectLentGpus(threeGpus(), {u"0"_s, u"3"_s});
    QVERIFY(!lent);
    QCOMPARE(lent.error().field, u"lend_gpus"_s);
    QVERIFY2(lent.error().message.contains(
                 u"names GPU 3, which this machine does not have; its GPUs: 0 (GPU-aaaa), 1 "
                 u"(GPU-bbbb), 2 (GPU-cccc)"_s),
             qPrintable(lent.error().message));
}

void TestOwnerControls::bookedPositionsMapToLentGpus()
{
    const QList<GpuInfo> lent = *selectLentGpus(threeGpus(), {u"0"_s, u"2"_s});
    QCOMPARE(gpusAtPositions(lent, {1}), QList<int>{2});
    QCOMPARE(gpusAtPositions(lent, {0, 1}), (QList<int>{0, 2}));
    QVERIFY(gpusAtPositions(lent, {2}).isEmpty()); // the server counted more than were lent
}

void TestOwnerControls::newestTouchedInputWins()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QDateTime now = QDateTime::currentDateTime();
    QVERIFY(writeFile(dir.filePath(u"pts-0"_s), 0, now.addSecs(-600)));
    QVERIFY(writeFile(dir.filePath(u"pts-1"_s), 0, now.addSecs(-60)));
    QVERIFY(writeFile(dir.filePath(u"other"_s), 0, now));
    const InputActivity input({dir.filePath(u"pts-*"_s), dir.filePath(u"missing"_s)});
    const InputActivity::Latest latest = input.latest();
    QCOMPARE(latest.path, dir.filePath(u"pts-1"_s));
    QVERIFY(qAbs(latest.at.secsTo(now.addSecs(-60))) <= 1);
    QVERIFY(!InputActivity({dir.filePath(u"none-*"_s)}).latest().at.isValid());

    // Output to a terminal (a `tail -f`) moves its modification time only: no one typed.
    QFile output(dir.filePath(u"pts-0"_s));
    QVERIFY(output.open(QIODevice::ReadWrite));
    QVERIFY(output.setFileTime(now.addSecs(5), QFileDevice::FileModificationTime));
    QCOMPARE(input.latest().path, dir.filePath(u"pts-1"_s));

    // The worker's own stderr is no one's input, however recently it was read.
    QVERIFY(writeFile(dir.filePath(u"pts-2"_s), 0, now.addSecs(5)));
    QFile own(dir.filePath(u"pts-2"_s));
    QVERIFY(own.open(QIODevice::ReadWrite));
    const int savedStderr = ::dup(2);
    QVERIFY(savedStderr >= 0 && ::dup2(own.handle(), 2) == 2);
    const InputActivity::Latest withOwn = input.latest();
    ::dup2(savedStderr, 2);
    ::close(savedStderr);
    QCOMPARE(withOwn.path, dir.filePath(u"pts-1"_s));
    QCOMPARE(input.latest().path, dir.filePath(u"pts-2"_s)); // once it is not the worker's
}

void TestOwnerControls::policyRefusesWhileInputIsRecentAndFollowsNewRules()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString device = dir.filePath(u"event0"_s);
    QVERIFY(writeFile(device, 0, QDateTime::currentDateTime().addSecs(-3600)));
    OwnerPolicy::Settings settings;
    settings.idleInputMs = 60 * 1000;
    settings.inputDevices = {device};
    settings.checkIntervalMs = 50;
    OwnerPolicy policy(settings, [] { return QList<qint64>(); });
    QSignalSpy changed(&policy, &OwnerPolicy::changed);
    policy.start();
    QVERIFY(policy.allowsTasks()); // an hour ago

    QVERIFY(writeFile(device, 0, QDateTime::currentDateTime())); // the owner types
    QTRY_COMPARE(changed.size(), 1);
    QVERIFY2(changed.at(0).at(0).toString().startsWith(u"the owner is at the machine (input at "_s +
                                                       device),
             qPrintable(changed.at(0).at(0).toString()));

    // The owner stops watching input but keeps the machine on no day of the week but one that
    // is not today: the refusal now says so, without a turn in between.
    OwnerPolicy::Settings hours;
    const int notToday = QDate::currentDate().addDays(2).dayOfWeek();
    static const char *const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    hours.hours = *AvailabilityWindows::parse(QString::fromLatin1(days[notToday - 1]));
    hours.checkIntervalMs = 50;
    policy.reconfigure(hours);
    QVERIFY(policy.refusal().startsWith(u"outside the hours the owner lends the machine"_s));
    QCOMPARE(changed.size(), 1);

    // No rules at all: tasks may run again, once.
    policy.reconfigure(OwnerPolicy::Settings{});
    QCOMPARE(changed.size(), 2);
    QVERIFY(changed.at(1).at(0).toString().isEmpty());
    QCOMPARE(policy.describe(), u"none"_s);
}

void TestOwnerControls::folderBytesLeaveTheDatasetOutAndStopAtTheLimit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(u"output/deep"_s));
    QVERIFY(QDir(dir.path()).mkpath(u"dataset"_s));
    QVERIFY(writeFile(dir.filePath(u"output/deep/a"_s), 3000));
    QVERIFY(writeFile(dir.filePath(u"output/b"_s), 2000));
    QVERIFY(writeFile(dir.filePath(u"dataset/huge"_s), 100000));
    QVERIFY(QFile::link(dir.filePath(u"dataset/huge"_s), dir.filePath(u"output/link"_s)));
    QCOMPARE(folderBytes(dir.path(), dir.filePath(u"dataset"_s), 1 << 30), 5000);
    // Over the limit: the walk may stop early, never below what made it stop.
    QVERIFY(folderBytes(dir.path(), {}, 1000) > 1000);
}

void TestOwnerControls::diskWatchReportsATaskOverANewLimit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath(u"written"_s), 5000));
    TaskDiskWatch watch(1 << 20, 20, [&dir] {
        return QList<TaskDiskWatch::Task>{{7, dir.path(), {}}};
    });
    QSignalSpy over(&watch, &TaskDiskWatch::overLimit);
    watch.start();
    QTest::qWait(200); // several rounds under 1 MiB
    QCOMPARE(over.size(), 0);
    watch.setLimit(4096); // the owner lowers the limit while the task runs
    QTRY_VERIFY(over.size() >= 1);
    QCOMPARE(over.at(0).at(0).toLongLong(), 7);
    QCOMPARE(over.at(0).at(1).toLongLong(), 5000);
    watch.setLimit(0); // and lifts it
    QTest::qWait(100); // a round that was under way may still report
    over.clear();
    QTest::qWait(200);
    QCOMPARE(over.size(), 0);
}

QTEST_GUILESS_MAIN(TestOwnerControls)
#include "tst_ownercontrols.moc"
