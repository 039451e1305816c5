// Utilisation sampling of the worker: /proc parsing, the CPU and memory of a real process tree,
// and GPU readings from a fake nvidia-smi (a shell script on no real GPU), asked without ever
// blocking the event loop.
#include "monitor/gpupoller.h"
#include "monitor/procusage.h"
#include "monitor/usagesampler.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ddl;
using namespace ddl::worker;

namespace {

// Three busy loops under one shell, each child's pid printed on a line of its own.
const QString BusyChildren = u"for i in 1 2 3; do sh -c 'while :; do :; done' & echo $!; done; "
                             u"wait"_s;

// A script named nvidia-smi that prints what a real one prints for the worker's query.
QString writeFakeNvidiaSmi(const QTemporaryDir &dir, const QByteArray &body)
{
    const QString path = dir.filePath(u"nvidia-smi"_s);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class tst_UsageSampler : public QObject
{
    Q_OBJECT

private slots:
    void parseStat_data();
    void parseStat();
    void hostUsageFromProcFiles();
    void gpuCsv_data();
    void gpuCsv();
    void busyProcessTreeIsMeasured();
    void samplerReportsTaskAndFakeGpuReadings();
    void firstSampleIsTheAverageSinceStart();
    void hangingFakeGpuNvidiaSmiIsKilledWithoutBlocking();
};

void tst_UsageSampler::parseStat_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("pid");
    QTest::addColumn<qint64>("parent");
    QTest::addColumn<qint64>("ticks");
    QTest::addColumn<qint64>("pages");
    // Fields after comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime priority nice threads itreal starttime vsize rss.
    QTest::newRow("plain") << QByteArray("42 (python3) R 7 42 42 0 -1 0 1 2 3 4 100 20 3 4 20 0 1 "
                                         "0 555 1000 250 rest")
                           << true << qint64(42) << qint64(7) << qint64(127) << qint64(250);
    QTest::newRow("comm with spaces and parentheses")
        << QByteArray("9 (a (b) c) S 1 9 9 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 1 1 10") << true
        << qint64(9) << qint64(1) << qint64(10) << qint64(10);
    QTest::newRow("cut short") << QByteArray("9 (x) S 1 9") << false << qint64(0) << qint64(0)
                               << qint64(0) << qint64(0);
    QTest::newRow("no comm") << QByteArray("garbage") << false << qint64(0) << qint64(0)
                             << qint64(0) << qint64(0);
}

void tst_UsageSampler::parseStat()
{
    QFETCH(QByteArray, line);
    QFETCH(bool, ok);
    procusage::ProcessUsage usage;
    QCOMPARE(procusage::parseStat(line, &usage), ok);
    if (!ok)
        return;
    QFETCH(qint64, pid);
    QFETCH(qint64, parent);
    QFETCH(qint64, ticks);
    QFETCH(qint64, pages);
    QCOMPARE(usage.pid, pid);
    QCOMPARE(usage.parentPid, parent);
    QCOMPARE(usage.cpuTicks, ticks);
    QCOMPARE(usage.residentPages, pages);
}

void tst_UsageSampler::hostUsageFromProcFiles()
{
    const procusage::HostUsage host = procusage::parseHostUsage(
        "cpu  100 5 50 1000 30 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8\n",
        "MemTotal:       16000000 kB\nMemFree:   100 kB\nMemAvailable:   12000000 kB\n");
    QCOMPARE(host.busyTicks, qint64(100 + 5 + 50 + 1 + 2 + 3)); // idle and iowait are not busy
    QCOMPARE(host.memoryUsedBytes, qint64(4000000) * 1024);
    // The real machine: something is always in use.
    QVERIFY(procusage::readHostUsage().memoryUsedBytes > 0);
}

void tst_UsageSampler::gpuCsv_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QList<GpuReading>>("expected");
    QTest::newRow("two GPUs") << QByteArray("0, 37, 1234, 16384\n1, 0, 3, 16384\n")
                              << QList<GpuReading>{{0, 37, 1234, 16384}, {1, 0, 3, 16384}};
    QTest::newRow("not supported reading left out")
        << QByteArray("0, [N/A], 1234, 16384\n1, 5, 10, 81920\n")
        << QList<GpuReading>{{1, 5, 10, 81920}};
    QTest::newRow("error text") << QByteArray("NVIDIA-SMI has failed\n") << QList<GpuReading>{};
}

void tst_UsageSampler::gpuCsv()
{
    QFETCH(QByteArray, csv);
    QFETCH(QList<GpuReading>, expected);
    QCOMPARE(parseGpuUtilisationCsv(csv), expected);
}

void tst_UsageSampler::busyProcessTreeIsMeasured()
{
    // A shell whose three children burn CPU: the tree is the shell and its children together
    // (three, so that the tree gets half a core even on a machine busy with builds).
    QProcess shell;
    shell.start(u"/bin/sh"_s, {u"-c"_s, BusyChildren});
    QVERIFY(shell.waitForStarted());
    QList<qint64> children;
    while (children.size() < 3 && shell.waitForReadyRead(5000)) {
        while (shell.canReadLine())
            children.append(shell.readLine().trimmed().toLongLong());
    }
    QCOMPARE(children.size(), 3);
    const auto stop = qScopeGuard([&shell, children] {
        for (qint64 child : children)
            ::kill(pid_t(child), SIGKILL);
        shell.kill();
        shell.waitForFinished();
    });
    procusage::TreeUsage first;
    QVERIFY(QTest::qWaitFor([&] {
        first = procusage::treeUsage(procusage::readProcesses(), shell.processId());
        return first.processes >= 4;
    }));
    QElapsedTimer clock;
    clock.start();
    QTest::qWait(1000);
    const procusage::TreeUsage second =
        procusage::treeUsage(procusage::readProcesses(), shell.processId());
    const double percent = double(second.cpuTicks - first.cpuTicks) / procusage::ticksPerSecond() /
                           (double(clock.elapsed()) / 1000) * 100;
    // The shell itself burns nothing: what is measured is its children's. Under a loaded
    // machine (load 8 on 2 cores) three busy loops got 41% of a core, so the bound is low.
    QVERIFY2(percent > 10, qPrintable(u"%1% of a core"_s.arg(percent)));
    QVERIFY(second.residentBytes > 0);
    QCOMPARE(procusage::treeUsage(procusage::readProcesses(), 0).processes, 0);
}

void tst_UsageSampler::samplerReportsTaskAndFakeGpuReadings()
{
    QTemporaryDir dir;
    const QString fake =
        writeFakeNvidiaSmi(dir, "echo '0, 37, 1234, 16384'\necho '1, 90, 8000, 16384'\n");
    QVERIFY(!fake.isEmpty());
    QProcess busy;
    busy.start(u"/bin/sh"_s, {u"-c"_s, BusyChildren});
    QVERIFY(busy.waitForStarted());
    QList<qint64> children;
    while (children.size() < 3 && busy.waitForReadyRead(5000)) {
        while (busy.canReadLine())
            children.append(busy.readLine().trimmed().toLongLong());
    }
    QCOMPARE(children.size(), 3);
    const auto stop = qScopeGuard([&busy, children] {
        for (qint64 child : children)
            ::kill(pid_t(child), SIGKILL);
        busy.kill();
        busy.waitForFinished();
    });

    UsageSampler sampler(300, fake);
    sampler.setTaskSource([&busy] { return QList<SampledTask>{{7, busy.processId(), {}, {1}}}; });
    QSignalSpy tasks(&sampler, &UsageSampler::taskSampled);
    QSignalSpy host(&sampler, &UsageSampler::hostSampled);
    sampler.start();
    QTRY_VERIFY_WITH_TIMEOUT(tasks.size() >= 3 && host.size() >= 1, 10000);
    const UtilisationSample last = tasks.constLast().at(1).value<UtilisationSample>();
    QCOMPARE(tasks.constLast().at(0).toLongLong(), qint64(7));
    QVERIFY2(last.cpuPercent > 10, qPrintable(QString::number(last.cpuPercent)));
    QVERIFY(last.memoryBytes > 0);
    // Only the task's own GPU, as the fake nvidia-smi said it.
    QCOMPARE(last.gpus, (QList<GpuReading>{{1, 90, 8000, 16384}}));
    const UtilisationSample machine = host.constLast().at(0).value<UtilisationSample>();
    QCOMPARE(machine.gpus.size(), 2);
    QVERIFY(machine.memoryBytes > 0);
}

void tst_UsageSampler::firstSampleIsTheAverageSinceStart()
{
    QProcess busy;
    busy.start(u"/bin/sh"_s, {u"-c"_s, BusyChildren});
    QVERIFY(busy.waitForStarted());
    QList<qint64> children;
    while (children.size() < 3 && busy.waitForReadyRead(5000)) {
        while (busy.canReadLine())
            children.append(busy.readLine().trimmed().toLongLong());
    }
    QCOMPARE(children.size(), 3);
    const auto stop = qScopeGuard([&busy, children] {
        for (qint64 child : children)
            ::kill(pid_t(child), SIGKILL);
        busy.kill();
        busy.waitForFinished();
    });
    QTest::qWait(500);
    // An hour between rounds: whatever comes, comes from the first one.
    UsageSampler sampler(3600 * 1000, {});
    sampler.setTaskSource([&busy] { return QList<SampledTask>{{3, busy.processId(), {}, {}}}; });
    QSignalSpy tasks(&sampler, &UsageSampler::taskSampled);
    QSignalSpy host(&sampler, &UsageSampler::hostSampled);
    sampler.start();
    QCOMPARE(tasks.size(), 1);
    const UtilisationSample first = tasks.constFirst().at(1).value<UtilisationSample>();
    // Without the average since start the first round would read 0. How much of a core three
    // busy loops got depends on what else runs (17% was seen beside a build): more than nothing.
    QVERIFY2(first.cpuPercent > 1 && first.cpuPercent < 100 * (QThread::idealThreadCount() + 1),
             qPrintable(QString::number(first.cpuPercent)));
    QVERIFY(first.gpus.isEmpty()); // no nvidia-smi given
    QCOMPARE(host.size(), 0);      // the machine's CPU is a difference of two rounds
}

void tst_UsageSampler::hangingFakeGpuNvidiaSmiIsKilledWithoutBlocking()
{
    QTemporaryDir dir;
    const QString fake = writeFakeNvidiaSmi(dir, "exec sleep 60\n");
    GpuPoller poller(fake);
    poller.setTimeout(500);
    // A timer of the same event loop keeps ticking while nvidia-smi hangs.
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
    ticker.start(20);
    QElapsedTimer clock;
    clock.start();
    poller.poll();
    QVERIFY(clock.elapsed() < 200); // poll() returns at once
    QTRY_VERIFY_WITH_TIMEOUT(ticks >= 10, 2000);
    // Killed after the timeout: a new query can start, and no reading was made up.
    QTRY_VERIFY_WITH_TIMEOUT(poller.findChildren<QProcess *>().isEmpty() ||
                                 poller.findChildren<QProcess *>().constFirst()->state() ==
                                     QProcess::NotRunning,
                             5000);
    QVERIFY(clock.elapsed() < 5000);
    QVERIFY(poller.latest(60000).isEmpty());
}

QTEST_GUILESS_MAIN(tst_UsageSampler)
#include "tst_usagesampler.moc"
