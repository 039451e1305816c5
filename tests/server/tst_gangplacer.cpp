// GangPlacer: placement of a whole gang (all tasks or none) by best fit on free GPUs, the
// bookkeeping of GPUs by index, CPUs, memory, slots and ports, and the words of explain().
// Pure and in memory: no store, no event loop.
#include "scheduler/gangplacer.h"

#include <QTest>
#include <algorithm>

using namespace ddl::server;
using namespace Qt::StringLiterals;

namespace {

// What a worker declares, in the order of WorkerNode's totals.
struct Declared
{
    int gpus = 0;
    int cpus = 8;
    qint64 memoryMb = 32000;
    int slotCount = 4;
    bool online = true;
    QString gpuType;
    QStringList runtimes = {u"bubblewrap"_s};
};

WorkerNode nodeOf(qint64 id, const Declared &declared)
{
    WorkerNode node;
    node.id = id;
    node.address = QStringLiteral("10.0.0.%1").arg(id);
    node.totalGpus = declared.gpus;
    node.totalCpus = declared.cpus;
    node.totalMemoryMb = declared.memoryMb;
    node.totalSlots = declared.slotCount;
    node.online = declared.online;
    node.gpuType = declared.gpuType;
    node.runtimes = declared.runtimes;
    return node;
}

// A placer with workers 1..n as declared.
GangPlacer placerWith(const QList<Declared> &workers)
{
    GangPlacer placer;
    for (int i = 0; i < workers.size(); ++i)
        placer.addWorker(nodeOf(i + 1, workers.at(i)));
    return placer;
}

// Tasks numbered 1..n.
QList<TaskDemand> gang(const QList<TaskDemand> &tasks)
{
    QList<TaskDemand> numbered = tasks;
    for (int i = 0; i < numbered.size(); ++i)
        numbered[i].taskId = i + 1;
    return numbered;
}

TaskDemand gpuTask(int gpus, int cpus = 1, qint64 memoryMb = 0)
{
    return TaskDemand{0, gpus, cpus, memoryMb};
}

// The tasks of a job whose OpenPAI gpuType is type.
QList<TaskDemand> ofType(const QString &type, QList<TaskDemand> tasks)
{
    for (TaskDemand &task : tasks)
        task.gpuType = type;
    return tasks;
}

// A worker labelled with a GPU type (--gpu-type).
Declared labelled(const QString &type, int gpus = 2, int slotCount = 4, bool online = true)
{
    return Declared{gpus, 8, 32000, slotCount, online, type};
}

// A worker started with --container-runtime podman.
Declared withPodman(Declared declared)
{
    declared.runtimes << u"podman"_s;
    return declared;
}

// A podman worker that wrote the CDI spec of its GPUs: containers get GPUs there.
Declared withCdi(Declared declared)
{
    declared.runtimes << u"podman"_s << u"cdi"_s;
    return declared;
}

// The tasks of a job that names a ddl:// image: only workers that run containers take them.
QList<TaskDemand> inImage(QList<TaskDemand> tasks, const QString &image = u"ddl://ddl-test"_s)
{
    for (TaskDemand &task : tasks)
        task.containerImage = image;
    return tasks;
}

// Everything of a worker that a placement may change.
struct Snapshot
{
    QList<bool> gpuBusy;
    int freeCpus = 0;
    qint64 freeMemoryMb = 0;
    int freeSlots = 0;
    QSet<int> usedPorts;
    bool operator==(const Snapshot &) const = default;
};

QHash<qint64, Snapshot> snapshot(const GangPlacer &placer)
{
    QHash<qint64, Snapshot> state;
    for (const WorkerNode &node : placer.workers())
        state.insert(node.id, Snapshot{node.gpuBusy, node.freeCpus, node.freeMemoryMb,
                                       node.freeSlots, node.usedPorts});
    return state;
}

// Checks that the free amounts of every worker are its totals less what the placements hold,
// that no GPU index or port is held twice on a worker, and that held GPUs are marked busy.
void verifyBooks(const GangPlacer &placer, const QList<Placement> &held)
{
    for (const WorkerNode &node : placer.workers()) {
        int cpus = 0, taskCount = 0;
        qint64 memory = 0;
        QSet<int> gpus, ports;
        for (const Placement &placement : held) {
            if (placement.workerId != node.id)
                continue;
            cpus += placement.cpus;
            memory += placement.memoryMb;
            ++taskCount;
            for (const int index : placement.gpuIndices) {
                QVERIFY2(index >= 0 && index < node.totalGpus,
                         qPrintable(QStringLiteral("GPU %1 of worker %2").arg(index).arg(node.id)));
                QVERIFY2(!gpus.contains(index),
                         qPrintable(QStringLiteral("GPU %1 of worker %2 booked twice")
                                        .arg(index)
                                        .arg(node.id)));
                gpus.insert(index);
                QVERIFY(node.gpuBusy.at(index));
            }
            // The task's own port and the rest of its run (its portList's ports).
            for (int port = placement.port; port < placement.port + placement.portCount; ++port) {
                QVERIFY2(
                    !ports.contains(port),
                    qPrintable(
                        QStringLiteral("port %1 of worker %2 given twice").arg(port).arg(node.id)));
                ports.insert(port);
                QVERIFY(port >= GangPlacer::FirstPort &&
                        port < GangPlacer::FirstPort + GangPlacer::PortCount);
            }
        }
        QCOMPARE(node.freeGpus(), node.totalGpus - int(gpus.size()));
        QCOMPARE(node.freeCpus, node.totalCpus - cpus);
        QCOMPARE(node.freeMemoryMb, node.totalMemoryMb - memory);
        QCOMPARE(node.freeSlots, node.totalSlots - taskCount);
        QCOMPARE(node.usedPorts, ports);
    }
}

} // namespace

Q_DECLARE_METATYPE(QList<Declared>)
Q_DECLARE_METATYPE(QList<TaskDemand>)

class tst_GangPlacer : public QObject
{
    Q_OBJECT

private slots:
    void place_data();
    void place();
    void allOrNothing_data();
    void allOrNothing();
    void gpuIndicesNeverBookedTwice();
    void releaseReturnsResources();
    void portsDistinctPerWorker();
    void takenPortIsNotGivenAgain();
    void portRunsForPortLists();
    void updateWorkerKeepsWhatTasksHold();
    void updateWorkerWithFewerGpus();
    void updateWorkerTakesItsNewRuntimes();
    void explain_data();
    void explain();
    void neverPlaceable_data();
    void neverPlaceable();
    void trustDecidesWhichWorkersTakeTasks();
    void canaryGoesToItsWorkerOnly();
};

void tst_GangPlacer::place_data()
{
    QTest::addColumn<QList<Declared>>("workers");
    QTest::addColumn<QList<TaskDemand>>("tasks");
    // The worker of each task, in task order; empty when the gang must not be placed.
    QTest::addColumn<QList<qint64>>("expected");

    QTest::newRow("single task fits") << QList<Declared>{{4}} << gang({gpuTask(1)})
                                      << QList<qint64>{1};
    QTest::newRow("single task too big")
        << QList<Declared>{{2}} << gang({gpuTask(4)}) << QList<qint64>{};
    QTest::newRow("cpu-only task fits on a gpu-less worker")
        << QList<Declared>{{0}} << gang({gpuTask(0, 2, 1000)}) << QList<qint64>{1};
    QTest::newRow("tightest fit: 1 GPU goes to the worker with 1 free, not 4")
        << QList<Declared>{{4}, {1}} << gang({gpuTask(1)}) << QList<qint64>{2};
    QTest::newRow("tightest fit: 2 GPUs between 1, 2 and 4 free")
        << QList<Declared>{{4}, {1}, {2}} << gang({gpuTask(2)}) << QList<qint64>{3};
    QTest::newRow("cpu-only task goes to the worker with fewest GPUs")
        << QList<Declared>{{4}, {0}, {2}} << gang({gpuTask(0)}) << QList<qint64>{2};
    QTest::newRow("among equal GPUs, fewest free CPUs")
        << QList<Declared>{{2, 16}, {2, 4}} << gang({gpuTask(1, 2)}) << QList<qint64>{2};
    QTest::newRow("CPUs rule out the tighter worker")
        << QList<Declared>{{2, 2}, {4, 16}} << gang({gpuTask(1, 8)}) << QList<qint64>{2};
    QTest::newRow("memory rules out the tighter worker")
        << QList<Declared>{{1, 8, 1000}, {4, 8, 64000}} << gang({gpuTask(1, 1, 8000)})
        << QList<qint64>{2};
    QTest::newRow("gang split across two workers")
        << QList<Declared>{{2}, {2}} << gang({gpuTask(2), gpuTask(2)}) << QList<qint64>{1, 2};
    QTest::newRow("gang shares one worker while slots last")
        << QList<Declared>{{4, 8, 32000, 2}} << gang({gpuTask(1), gpuTask(1)})
        << QList<qint64>{1, 1};
    QTest::newRow("gang larger than the slots of the only worker")
        << QList<Declared>{{4, 8, 32000, 2}} << gang({gpuTask(1), gpuTask(1), gpuTask(1)})
        << QList<qint64>{};
    QTest::newRow("gang needs more GPUs than the cluster has free")
        << QList<Declared>{{2}, {2}} << gang({gpuTask(2), gpuTask(2), gpuTask(2)})
        << QList<qint64>{};
    QTest::newRow("largest task first makes the gang fit")
        << QList<Declared>{{3}, {4}} << gang({gpuTask(1), gpuTask(3), gpuTask(3)})
        << QList<qint64>{2, 1, 2};
    QTest::newRow("offline worker never chosen")
        << QList<Declared>{{4, 8, 32000, 4, false}, {1}} << gang({gpuTask(1)})
        << QList<qint64>{2};
    QTest::newRow("only an offline worker would fit")
        << QList<Declared>{{4, 8, 32000, 4, false}, {1}} << gang({gpuTask(4)})
        << QList<qint64>{};
    QTest::newRow("worker with no slot never chosen")
        << QList<Declared>{{4, 8, 32000, 0}, {1}} << gang({gpuTask(1)}) << QList<qint64>{2};
    QTest::newRow("only a worker with no slot would fit")
        << QList<Declared>{{4, 8, 32000, 0}} << gang({gpuTask(0)}) << QList<qint64>{};
    // OpenPAI's gpuType: only workers of that label, matched in any case.
    QTest::newRow("gpuType: its worker, not the tighter one of another type")
        << QList<Declared>{labelled(u"K80"_s, 1), labelled(u"V100"_s, 4)}
        << ofType(u"V100"_s, gang({gpuTask(1)})) << QList<qint64>{2};
    QTest::newRow("gpuType matches in any case")
        << QList<Declared>{labelled(u"K80"_s), labelled(u"Tesla V100"_s)}
        << ofType(u"tesla v100"_s, gang({gpuTask(1)})) << QList<qint64>{2};
    QTest::newRow("gpuType mismatch: no worker of that type")
        << QList<Declared>{labelled(u"K80"_s, 4)} << ofType(u"V100"_s, gang({gpuTask(1)}))
        << QList<qint64>{};
    QTest::newRow("gpuType mismatch: an unlabelled worker is none")
        << QList<Declared>{{4}} << ofType(u"V100"_s, gang({gpuTask(0)})) << QList<qint64>{};
    QTest::newRow("gpuType binds CPU-only tasks too")
        << QList<Declared>{labelled(u"A"_s, 0), labelled(u"B"_s, 0)}
        << ofType(u"B"_s, gang({gpuTask(0), gpuTask(0)})) << QList<qint64>{2, 2};
    QTest::newRow("gpuType gang waits for slots on its type, others free")
        << QList<Declared>{labelled(u"A"_s, 0, 1), labelled(u"B"_s, 0, 4)}
        << ofType(u"A"_s, gang({gpuTask(0), gpuTask(0)})) << QList<qint64>{};
    QTest::newRow("no gpuType: labelled workers take it")
        << QList<Declared>{labelled(u"K80"_s)} << gang({gpuTask(1)}) << QList<qint64>{1};
    // A ddl:// image: only workers that run containers.
    QTest::newRow("ddl image: the podman worker, not the tighter sandbox one")
        << QList<Declared>{{0, 2}, withPodman({0, 16})} << inImage(gang({gpuTask(0)}))
        << QList<qint64>{2};
    QTest::newRow("ddl image: no worker runs containers")
        << QList<Declared>{{0}, {0}} << inImage(gang({gpuTask(0)})) << QList<qint64>{};
    QTest::newRow("ddl image: an offline podman worker is none")
        << QList<Declared>{{0}, withPodman({0, 8, 32000, 4, false})}
        << inImage(gang({gpuTask(0)})) << QList<qint64>{};
    QTest::newRow("ddl image gang waits for slots on podman workers, others free")
        << QList<Declared>{withPodman({0, 8, 32000, 1}), {0, 8, 32000, 4}}
        << inImage(gang({gpuTask(0), gpuTask(0)})) << QList<qint64>{};
    QTest::newRow("ddl image and gpuType: both must hold")
        << QList<Declared>{withCdi(labelled(u"K80"_s)), labelled(u"V100"_s),
                           withCdi(labelled(u"V100"_s))}
        << inImage(ofType(u"V100"_s, gang({gpuTask(1)}))) << QList<qint64>{3};
    // GPUs in a container: only a worker that gives them (it wrote its CDI spec).
    QTest::newRow("ddl image with GPUs: the worker with CDI, not the tighter podman one")
        << QList<Declared>{withPodman({1}), withCdi({4})} << inImage(gang({gpuTask(1)}))
        << QList<qint64>{2};
    QTest::newRow("ddl image with GPUs: podman workers without CDI take none")
        << QList<Declared>{withPodman({4}), {4}} << inImage(gang({gpuTask(1)}))
        << QList<qint64>{};
    QTest::newRow("ddl image without GPUs: a podman worker without CDI takes it")
        << QList<Declared>{withPodman({4})} << inImage(gang({gpuTask(0)})) << QList<qint64>{1};
    QTest::newRow("no image: podman workers take it")
        << QList<Declared>{withPodman({0})} << gang({gpuTask(0)}) << QList<qint64>{1};
}

void tst_GangPlacer::place()
{
    QFETCH(QList<Declared>, workers);
    QFETCH(QList<TaskDemand>, tasks);
    QFETCH(QList<qint64>, expected);

    GangPlacer placer = placerWith(workers);
    const auto before = snapshot(placer);
    const QList<Placement> placements = placer.place(tasks);

    if (expected.isEmpty()) {
        QVERIFY(placements.isEmpty());
        QCOMPARE(snapshot(placer), before);
        return;
    }
    QCOMPARE(placements.size(), tasks.size());
    for (const TaskDemand &task : tasks) {
        const auto placement = std::find_if(placements.begin(), placements.end(),
                                            [&](const Placement &p) {
                                                return p.taskId == task.taskId;
                                            });
        QVERIFY2(placement != placements.end(),
                 qPrintable(QStringLiteral("task %1 not placed").arg(task.taskId)));
        QCOMPARE(placement->workerId, expected.at(task.taskId - 1));
        QCOMPARE(placement->gpuIndices.size(), task.gpus);
        QCOMPARE(placement->cpus, task.cpus);
        QCOMPARE(placement->memoryMb, task.memoryMb);
    }
    verifyBooks(placer, placements);
}

void tst_GangPlacer::allOrNothing_data()
{
    QTest::addColumn<QList<Declared>>("workers");
    // Placed first and kept, so that the workers are partly used when the gang comes.
    QTest::addColumn<QList<TaskDemand>>("earlier");
    QTest::addColumn<QList<TaskDemand>>("tasks");
    // A gang that fits the state the failed one must leave behind.
    QTest::addColumn<QList<TaskDemand>>("fitting");

    QTest::newRow("last task lacks GPUs")
        << QList<Declared>{{4}, {1}} << QList<TaskDemand>{}
        << gang({gpuTask(4), gpuTask(1), gpuTask(1)}) << gang({gpuTask(4), gpuTask(1)});
    QTest::newRow("last task lacks CPUs")
        << QList<Declared>{{2, 4}, {2, 4}} << QList<TaskDemand>{}
        << gang({gpuTask(1, 3), gpuTask(1, 3), gpuTask(0, 2)})
        << gang({gpuTask(1, 3), gpuTask(1, 1), gpuTask(0, 1)});
    QTest::newRow("last task lacks memory")
        << QList<Declared>{{2, 8, 1000}, {2, 8, 1000}} << QList<TaskDemand>{}
        << gang({gpuTask(1, 1, 800), gpuTask(1, 1, 800), gpuTask(0, 1, 300)})
        << gang({gpuTask(1, 1, 800), gpuTask(1, 1, 800), gpuTask(0, 1, 200)});
    QTest::newRow("last task lacks a slot")
        << QList<Declared>{{4, 8, 32000, 1}, {4, 8, 32000, 1}} << QList<TaskDemand>{}
        << gang({gpuTask(1), gpuTask(1), gpuTask(1)}) << gang({gpuTask(1), gpuTask(1)});
    QTest::newRow("partly used workers")
        << QList<Declared>{{4}, {4}} << gang({gpuTask(2), gpuTask(1)})
        << gang({gpuTask(3), gpuTask(2), gpuTask(1)}) << gang({gpuTask(4), gpuTask(1)});
}

void tst_GangPlacer::allOrNothing()
{
    QFETCH(QList<Declared>, workers);
    QFETCH(QList<TaskDemand>, earlier);
    QFETCH(QList<TaskDemand>, tasks);
    QFETCH(QList<TaskDemand>, fitting);

    GangPlacer placer = placerWith(workers);
    QList<Placement> held;
    if (!earlier.isEmpty()) {
        held = placer.place(earlier);
        QCOMPARE(held.size(), earlier.size());
    }
    const auto before = snapshot(placer);
    const auto summaryBefore = placer.summary();

    QVERIFY(placer.place(tasks).isEmpty());
    QCOMPARE(snapshot(placer), before);
    QCOMPARE(placer.summary().freeSlots, summaryBefore.freeSlots);
    QCOMPARE(placer.summary().largestFreeGpus, summaryBefore.largestFreeGpus);
    verifyBooks(placer, held);

    // The index of free workers survived the undo: a gang that fits is placed.
    const QList<Placement> placed = placer.place(fitting);
    QCOMPARE(placed.size(), fitting.size());
    verifyBooks(placer, held + placed);
}

void tst_GangPlacer::gpuIndicesNeverBookedTwice()
{
    GangPlacer placer = placerWith({{8, 16, 64000, 8}, {4, 16, 64000, 8}});
    QList<Placement> held;
    for (const int gpus : {1, 3, 2, 2, 1, 2, 1}) {
        const QList<Placement> placed = placer.place(gang({gpuTask(gpus)}));
        QCOMPARE(placed.size(), 1);
        held += placed;
        verifyBooks(placer, held);
    }
    // 12 GPUs, all booked: another GPU task waits.
    QCOMPARE(placer.summary().largestFreeGpus, 0);
    QVERIFY(placer.place(gang({gpuTask(1)})).isEmpty());

    // A released placement's GPUs are given again, and only those.
    const Placement freed = held.takeAt(1);
    placer.release(freed);
    const QList<Placement> again = placer.place(gang({gpuTask(int(freed.gpuIndices.size()))}));
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.first().workerId, freed.workerId);
    QCOMPARE(again.first().gpuIndices, freed.gpuIndices);
    held += again;
    verifyBooks(placer, held);
}

void tst_GangPlacer::releaseReturnsResources()
{
    GangPlacer placer = placerWith({{4, 8, 16000, 4}, {2, 8, 16000, 2}});
    const auto fresh = snapshot(placer);
    const QList<Placement> first = placer.place(
        gang({gpuTask(2, 4, 8000), gpuTask(2, 2, 4000), gpuTask(1, 1, 1000)}));
    QCOMPARE(first.size(), 3);
    const QList<Placement> second = placer.place(gang({gpuTask(1, 1, 1000)}));
    QCOMPARE(second.size(), 1);
    verifyBooks(placer, first + second);
    QVERIFY(snapshot(placer) != fresh);

    for (const Placement &placement : first)
        placer.release(placement);
    verifyBooks(placer, second);
    placer.release(second.first());
    QCOMPARE(snapshot(placer), fresh);
    // Everything is free again: the whole cluster is usable by one gang.
    QCOMPARE(placer.place(gang({gpuTask(4, 8, 16000), gpuTask(2, 8, 16000)})).size(), 2);
}

void tst_GangPlacer::portsDistinctPerWorker()
{
    GangPlacer placer = placerWith({{0, 64, 64000, 6}, {0, 64, 64000, 6}});
    QList<Placement> held = placer.place(
        gang({gpuTask(0), gpuTask(0), gpuTask(0), gpuTask(0), gpuTask(0), gpuTask(0)}));
    QCOMPARE(held.size(), 6);
    held += placer.place(gang({gpuTask(0), gpuTask(0), gpuTask(0)}));
    QCOMPARE(held.size(), 9);
    verifyBooks(placer, held);

    // Ports freed and given again stay distinct from those in use.
    placer.release(held.takeAt(0));
    placer.release(held.takeAt(2));
    held += placer.place(gang({gpuTask(0), gpuTask(0), gpuTask(0)}));
    QCOMPARE(held.size(), 10);
    verifyBooks(placer, held);
}

void tst_GangPlacer::takenPortIsNotGivenAgain()
{
    // A task running when the server started holds the first port; a new one gets another.
    GangPlacer placer = placerWith({{4, 8, 16000, 4}});
    const Placement running{41, 1, {0, 1}, GangPlacer::FirstPort, 2, 4000};
    placer.take(running);
    const QList<Placement> placed = placer.place(gang({gpuTask(2)}));
    QCOMPARE(placed.size(), 1);
    QCOMPARE(placed.first().gpuIndices, (QList<int>{2, 3}));
    QVERIFY(placed.first().port != running.port);
    verifyBooks(placer, {running, placed.first()});
}

void tst_GangPlacer::portRunsForPortLists()
{
    // Tasks with portLists book runs of ports that never overlap, also after a release.
    GangPlacer placer = placerWith({{0, 64, 64000, 8}});
    TaskDemand three = gpuTask(0);
    three.ports = 3;
    TaskDemand five = gpuTask(0);
    five.ports = 5;
    QList<Placement> held = placer.place(gang({three, five, gpuTask(0), three}));
    QCOMPARE(held.size(), 4);
    QList<int> counts;
    for (const Placement &placement : std::as_const(held))
        counts << placement.portCount;
    std::sort(counts.begin(), counts.end());
    QCOMPARE(counts, (QList<int>{1, 3, 3, 5}));
    verifyBooks(placer, held);

    placer.release(held.takeAt(1));
    held += placer.place(gang({five, five}));
    QCOMPARE(held.size(), 5);
    verifyBooks(placer, held);

    // A run held by a task from before a restart is not given again.
    GangPlacer restarted = placerWith({{0, 8, 16000, 4}});
    const Placement running{41, 1, {}, GangPlacer::FirstPort + 1, 1, 1000, 4};
    restarted.take(running);
    const QList<Placement> placed = restarted.place(gang({three, three}));
    QCOMPARE(placed.size(), 2);
    verifyBooks(restarted, placed + QList<Placement>{running});
}

void tst_GangPlacer::updateWorkerKeepsWhatTasksHold()
{
    GangPlacer placer = placerWith({{2, 8, 16000, 2}});
    const QList<Placement> placed = placer.place(gang({gpuTask(2, 4, 8000)}));
    QCOMPARE(placed.size(), 1);

    placer.updateWorker(nodeOf(1, {4, 16, 32000, 3}));
    verifyBooks(placer, placed);
    QCOMPARE(placer.workers().value(1).freeGpus(), 2);
    QCOMPARE(placer.place(gang({gpuTask(2)})).first().gpuIndices, (QList<int>{2, 3}));

    // Offline, it is never chosen, and online again it is.
    placer.updateWorker(nodeOf(1, {4, 16, 32000, 3, false}));
    QVERIFY(placer.place(gang({gpuTask(0)})).isEmpty());
    placer.updateWorker(nodeOf(1, {4, 16, 32000, 3, true}));
    QCOMPARE(placer.place(gang({gpuTask(0)})).size(), 1);
}

void tst_GangPlacer::updateWorkerWithFewerGpus()
{
    // A worker that comes back declaring 2 of its 4 GPUs (one failed, or CUDA_VISIBLE_DEVICES
    // changed) must not be given GPU indices 2 and 3 any more.
    GangPlacer placer = placerWith({{4, 8, 16000, 4}});
    placer.updateWorker(nodeOf(1, {2, 8, 16000, 4}));
    QCOMPARE(placer.workers().value(1).freeGpus(), 2);
    const QList<Placement> placed = placer.place(gang({gpuTask(4)}));
    QVERIFY(placed.isEmpty());
}

void tst_GangPlacer::updateWorkerTakesItsNewRuntimes()
{
    // A worker that kept its enrollment comes back with --container-runtime podman (or an older
    // worker announces its runtimes at its first heartbeat): ddl:// jobs may go there now.
    GangPlacer placer = placerWith({{0}});
    QVERIFY(placer.place(inImage(gang({gpuTask(0)}))).isEmpty());
    placer.updateWorker(nodeOf(1, withPodman({0})));
    QCOMPARE(placer.place(inImage(gang({gpuTask(0)}))).size(), 1);
    // And without it again, none.
    placer.updateWorker(nodeOf(1, {0}));
    QVERIFY(placer.place(inImage(gang({gpuTask(0)}))).isEmpty());
}

void tst_GangPlacer::explain_data()
{
    QTest::addColumn<QList<Declared>>("workers");
    QTest::addColumn<QList<TaskDemand>>("earlier");
    QTest::addColumn<QList<TaskDemand>>("tasks");
    QTest::addColumn<QString>("reason");

    QTest::newRow("no worker") << QList<Declared>{} << QList<TaskDemand>{} << gang({gpuTask(1)})
                               << QStringLiteral("no worker is online; start a ddl-worker");
    QTest::newRow("only offline workers")
        << QList<Declared>{{4, 8, 32000, 4, false}} << QList<TaskDemand>{} << gang({gpuTask(1)})
        << QStringLiteral("no worker is online; start a ddl-worker");
    QTest::newRow("GPUs: never")
        << QList<Declared>{{2}, {2}} << QList<TaskDemand>{} << gang({gpuTask(4)})
        << QStringLiteral("needs 4 GPUs on one worker; the largest worker has 2 GPUs, so it "
                          "cannot run until a bigger one joins");
    QTest::newRow("GPUs: not now")
        << QList<Declared>{{4}} << gang({gpuTask(3)}) << gang({gpuTask(2)})
        << QStringLiteral("needs 2 GPUs on one worker (the most free is 1)");
    QTest::newRow("CPUs: never")
        << QList<Declared>{{0, 8}} << QList<TaskDemand>{} << gang({gpuTask(0, 16)})
        << QStringLiteral("needs 16 CPUs on one worker; the largest worker has 8 CPUs, so it "
                          "cannot run until a bigger one joins");
    QTest::newRow("CPUs: not now")
        << QList<Declared>{{0, 8}} << gang({gpuTask(0, 6)}) << gang({gpuTask(0, 4)})
        << QStringLiteral("needs 4 CPUs on one worker (the most free is 2)");
    QTest::newRow("memory: never")
        << QList<Declared>{{0, 8, 32000}} << QList<TaskDemand>{} << gang({gpuTask(0, 1, 64000)})
        << QStringLiteral("needs 64000 MB of memory on one worker; the largest worker has 32000 "
                          "MB, so it cannot run until a bigger one joins");
    QTest::newRow("memory: not now")
        << QList<Declared>{{0, 8, 32000}} << gang({gpuTask(0, 1, 30000)})
        << gang({gpuTask(0, 1, 4000)})
        << QStringLiteral("needs 4000 MB of memory on one worker (the most free is 2000 MB)");
    QTest::newRow("slots") << QList<Declared>{{4, 8, 32000, 1}, {4, 8, 32000, 1}}
                           << gang({gpuTask(0)}) << gang({gpuTask(1), gpuTask(1)})
                           << QStringLiteral("needs 2 task slots at once (1 is free)");
    QTest::newRow("every short resource, never")
        << QList<Declared>{{2, 8, 32000}} << QList<TaskDemand>{} << gang({gpuTask(4, 16, 64000)})
        << QStringLiteral("needs 4 GPUs, 16 CPUs and 64000 MB of memory on one worker; the "
                          "largest worker has 2 GPUs, 8 CPUs and 32000 MB, so it cannot run until "
                          "a bigger one joins");
    QTest::newRow("every short resource, now")
        << QList<Declared>{{1, 2, 32000, 2}} << gang({gpuTask(1, 1)})
        << gang({gpuTask(1, 2), gpuTask(0, 1)})
        << QStringLiteral("needs 2 task slots at once (1 is free), 1 GPU on one worker (the most "
                          "free is 0) and 2 CPUs on one worker (the most free is 1)");
    QTest::newRow("gang's GPUs do not fit together")
        << QList<Declared>{{2}, {2}} << QList<TaskDemand>{}
        << gang({gpuTask(2), gpuTask(2), gpuTask(2)})
        << QStringLiteral("its 3 tasks need GPUs (2 + 2 + 2) on their workers all at once; the "
                          "free GPUs per worker are 2, 2");
    // Every slot is taken while CPUs, memory and GPUs are left: the slots are what it waits for.
    QTest::newRow("all slots busy")
        << QList<Declared>{{4, 8, 32000, 1}} << gang({gpuTask(1)}) << gang({gpuTask(1)})
        << QStringLiteral("needs 1 task slot at once (0 are free)");
    QTest::newRow("gpuType: no online worker has it")
        << QList<Declared>{labelled(u"K80"_s), labelled(u"V100"_s, 2, 4, false)}
        << QList<TaskDemand>{} << ofType(u"V100"_s, gang({gpuTask(1)}))
        << QStringLiteral("needs GPU type V100; no online worker has it (start a ddl-worker with "
                          "--gpu-type V100)");
    // The other type's free slots do not count.
    QTest::newRow("gpuType: its workers are busy")
        << QList<Declared>{labelled(u"V100"_s, 2, 1), labelled(u"K80"_s)}
        << ofType(u"V100"_s, gang({gpuTask(1)})) << ofType(u"v100"_s, gang({gpuTask(1)}))
        << QStringLiteral("on the workers with GPU type v100, needs 1 task slot at once (0 are "
                          "free)");
    QTest::newRow("ddl image: no online worker runs containers")
        << QList<Declared>{{0}, withPodman({0, 8, 32000, 4, false})} << QList<TaskDemand>{}
        << inImage(gang({gpuTask(0)}))
        << QStringLiteral("needs a worker with a container runtime (podman) for image "
                          "ddl://ddl-test; none is online (start a ddl-worker with "
                          "--container-runtime podman)");
    // The sandbox worker's free slots do not count.
    QTest::newRow("ddl image: its workers are busy")
        << QList<Declared>{withPodman({0, 8, 32000, 1}), {0}} << inImage(gang({gpuTask(0)}))
        << inImage(gang({gpuTask(0)}))
        << QStringLiteral("on the workers with podman, needs 1 task slot at once (0 are free)");
    QTest::newRow("ddl image and gpuType: no online worker has both")
        << QList<Declared>{labelled(u"V100"_s), withCdi(labelled(u"K80"_s))}
        << QList<TaskDemand>{} << inImage(ofType(u"V100"_s, gang({gpuTask(0)})))
        << QStringLiteral("needs a worker with GPU type V100 and a container runtime (podman) "
                          "for image ddl://ddl-test; none is online (start a ddl-worker with "
                          "--gpu-type V100 --container-runtime podman)");
    QTest::newRow("ddl image with GPUs: no online worker gives containers GPUs")
        << QList<Declared>{withPodman({2}), {2}} << QList<TaskDemand>{}
        << inImage(gang({gpuTask(1)}))
        << QStringLiteral("needs a worker with a container runtime (podman) that gives "
                          "containers GPUs (CDI) for image ddl://ddl-test; none is online (start "
                          "a ddl-worker with --container-runtime podman, as root, on a machine "
                          "where nvidia-smi sees its GPUs)");
    QTest::newRow("ddl image and gpuType: its workers are small")
        << QList<Declared>{withCdi(labelled(u"V100"_s, 1)), labelled(u"V100"_s, 8)}
        << QList<TaskDemand>{} << inImage(ofType(u"V100"_s, gang({gpuTask(4)})))
        << QStringLiteral("on the workers with GPU type V100 and podman with GPUs (CDI), needs 4 "
                          "GPUs on one worker; the largest worker has 1 GPU, so it cannot run "
                          "until a bigger one joins");
}

void tst_GangPlacer::explain()
{
    QFETCH(QList<Declared>, workers);
    QFETCH(QList<TaskDemand>, earlier);
    QFETCH(QList<TaskDemand>, tasks);
    QFETCH(QString, reason);

    GangPlacer placer = placerWith(workers);
    if (!earlier.isEmpty())
        QCOMPARE(placer.place(earlier).size(), earlier.size());
    QVERIFY(placer.place(tasks).isEmpty());
    // As the scheduler asks: a gang with a GPU type or image, about the workers that may take it.
    QCOMPARE(GangPlacer::explain(tasks, placer.summary(GangPlacer::needsOf(tasks))), reason);
}

void tst_GangPlacer::neverPlaceable_data()
{
    QTest::addColumn<QList<Declared>>("workers");
    QTest::addColumn<QList<TaskDemand>>("tasks");
    QTest::addColumn<QString>("reason");

    // Workers may come later: no verdict without any.
    QTest::newRow("no worker registered") << QList<Declared>{} << gang({gpuTask(8)}) << QString();
    QTest::newRow("only workers without slots")
        << QList<Declared>{{0, 2, 4000, 0}} << gang({gpuTask(8)}) << QString();
    QTest::newRow("fits") << QList<Declared>{{2}} << gang({gpuTask(2)}) << QString();
    QTest::newRow("fits on an offline worker")
        << QList<Declared>{{0}, {4, 8, 32000, 4, false}} << gang({gpuTask(4)}) << QString();
    QTest::newRow("GPUs on a CPU-only cluster")
        << QList<Declared>{{0, 2, 4000}} << gang({gpuTask(1)})
        << QStringLiteral("needs 1 GPU on one worker; the largest worker has 0 GPUs");
    QTest::newRow("memory")
        << QList<Declared>{{0, 2, 4000}} << gang({gpuTask(0, 1, 8000)})
        << QStringLiteral("needs 8000 MB of memory on one worker; the largest worker has 4000 MB");
    QTest::newRow("GPUs and CPUs only on different workers")
        << QList<Declared>{{4, 2}, {0, 64}} << gang({gpuTask(4, 64)})
        << QStringLiteral("a task needs 4 GPUs, 64 CPUs and 0 MB of memory on one worker; no "
                          "registered worker has all of them");
    QTest::newRow("more tasks than slots in all")
        << QList<Declared>{{0, 8, 32000, 1}} << gang({gpuTask(0), gpuTask(0)})
        << QStringLiteral("needs 2 task slots at once; the registered workers have 1 in all");
    QTest::newRow("gang larger than the cluster")
        << QList<Declared>{{2}, {2}} << gang({gpuTask(2), gpuTask(2), gpuTask(2)})
        << QStringLiteral("its 3 tasks do not fit together on the registered workers (2 "
                          "workers), even with nothing else running");
    QTest::newRow("gpuType no registered worker has")
        << QList<Declared>{labelled(u"K80"_s), labelled(u"A100"_s), {0}}
        << ofType(u"V100"_s, gang({gpuTask(1)}))
        << QStringLiteral("needs GPU type V100; no registered worker has it (they have A100 and "
                          "K80)");
    QTest::newRow("gpuType when no worker announces one")
        << QList<Declared>{{4}} << ofType(u"V100"_s, gang({gpuTask(1)}))
        << QStringLiteral("needs GPU type V100; no registered worker has it (none announces a GPU "
                          "type)");
    QTest::newRow("gpuType in any case, on an offline worker")
        << QList<Declared>{{0}, labelled(u"v100"_s, 4, 4, false)}
        << ofType(u"V100"_s, gang({gpuTask(4)})) << QString();
    QTest::newRow("gpuType: its workers are too small")
        << QList<Declared>{labelled(u"V100"_s, 2), labelled(u"K80"_s, 8)}
        << ofType(u"V100"_s, gang({gpuTask(4)}))
        << QStringLiteral("on the workers with GPU type V100, needs 4 GPUs on one worker; the "
                          "largest worker has 2 GPUs");
    QTest::newRow("ddl image when no worker runs containers")
        << QList<Declared>{{0}, labelled(u"V100"_s)} << inImage(gang({gpuTask(0)}))
        << QStringLiteral("needs a worker with a container runtime (podman) for image "
                          "ddl://ddl-test; no registered worker has one (start a ddl-worker with "
                          "--container-runtime podman)");
    QTest::newRow("ddl image on an offline podman worker")
        << QList<Declared>{{0}, withPodman({0, 8, 32000, 4, false})}
        << inImage(gang({gpuTask(0)})) << QString();
    QTest::newRow("ddl image: the podman workers are too small")
        << QList<Declared>{withPodman({0, 2}), {0, 64}} << inImage(gang({gpuTask(0, 8)}))
        << QStringLiteral("on the workers with podman, needs 8 CPUs on one worker; the largest "
                          "worker has 2 CPUs");
    QTest::newRow("ddl image and gpuType: the workers of the type run no containers")
        << QList<Declared>{labelled(u"V100"_s), withPodman(labelled(u"K80"_s))}
        << inImage(ofType(u"V100"_s, gang({gpuTask(0)})))
        << QStringLiteral("needs a worker with GPU type V100 and a container runtime (podman) "
                          "for image ddl://ddl-test; no registered worker has one (start a "
                          "ddl-worker with --gpu-type V100 --container-runtime podman)");
    QTest::newRow("ddl image with GPUs: no registered worker gives containers GPUs")
        << QList<Declared>{withPodman({4}), {4}} << inImage(gang({gpuTask(2)}))
        << QStringLiteral("needs a worker with a container runtime (podman) that gives "
                          "containers GPUs (CDI) for image ddl://ddl-test; no registered worker "
                          "has one (start a ddl-worker with --container-runtime podman, as root, "
                          "on a machine where nvidia-smi sees its GPUs)");
    QTest::newRow("ddl image with GPUs on a worker with CDI")
        << QList<Declared>{withCdi({4}), {8}} << inImage(gang({gpuTask(2)})) << QString();
}

void tst_GangPlacer::neverPlaceable()
{
    QFETCH(QList<Declared>, workers);
    QFETCH(QList<TaskDemand>, tasks);
    QFETCH(QString, reason);

    GangPlacer placer = placerWith(workers);
    // What runs now does not count: the question is whether it could ever fit.
    if (!workers.isEmpty() && workers.first().online)
        placer.place(gang({gpuTask(workers.first().gpus, workers.first().cpus)}));
    QCOMPARE(placer.neverPlaceable(tasks), reason);
}

void tst_GangPlacer::trustDecidesWhichWorkersTakeTasks()
{
    // Worker 1 trust 30, worker 2 trust 80, worker 3 quarantined, worker 4 awaits its canary.
    GangPlacer placer = placerWith({Declared{}, Declared{}, Declared{}, Declared{}});
    const auto setTrust = [&placer](qint64 id, int trust, bool quarantined, bool awaiting) {
        WorkerNode *node = placer.worker(id);
        node->trust = trust;
        node->quarantined = quarantined;
        node->awaitingCanary = awaiting;
    };
    setTrust(1, 30, false, false);
    setTrust(2, 80, false, false);
    setTrust(3, 100, true, false);
    setTrust(4, 100, false, true);

    // minWorkerTrust 50: only worker 2, for both tasks.
    TaskDemand trusted = gpuTask(0);
    trusted.minTrust = 50;
    QList<Placement> placed = placer.place(gang({trusted, trusted}));
    QCOMPARE(placed.size(), 2);
    for (const Placement &placement : std::as_const(placed))
        QCOMPARE(placement.workerId, 2);
    for (const Placement &placement : std::as_const(placed))
        placer.release(placement);

    // Without a minimum: never the quarantined worker nor the one awaiting its canary.
    placed = placer.place(gang({gpuTask(0), gpuTask(0), gpuTask(0), gpuTask(0), gpuTask(0),
                                gpuTask(0), gpuTask(0), gpuTask(0)}));
    QCOMPARE(placed.size(), 8);
    for (const Placement &placement : std::as_const(placed))
        QVERIFY2(placement.workerId == 1 || placement.workerId == 2,
                 qPrintable(QString::number(placement.workerId)));
    QVERIFY(placer.place(gang({gpuTask(0)})).isEmpty()); // 3 and 4 have room, but take nothing
    for (const Placement &placement : std::as_const(placed))
        placer.release(placement);

    // The waiting reasons say why.
    TaskDemand tooTrusting = gpuTask(0);
    tooTrusting.minTrust = 90;
    QCOMPARE(GangPlacer::explain(gang({tooTrusting}), placer.summary(tooTrusting)),
             u"needs a worker with trust >= 90; no online worker is one (the most trusted online "
             "worker has trust 80; 1 waiting for a canary check; see docs/trust.md)"_s);
    GangPlacer held = placerWith({Declared{}, Declared{}});
    held.worker(1)->quarantined = true;
    held.worker(2)->awaitingCanary = true;
    QCOMPARE(GangPlacer::explain(gang({gpuTask(0)}), held.summary()),
             u"no online worker takes tasks now: 1 waits for its canary check and 1 is "
             "quarantined (docs/trust.md)"_s);
    // Trust grows and quarantine ends: neither makes a job unplaceable for ever.
    QCOMPARE(held.neverPlaceable(gang({tooTrusting})), QString());
}

void tst_GangPlacer::canaryGoesToItsWorkerOnly()
{
    GangPlacer placer = placerWith({Declared{}, Declared{}});
    placer.worker(1)->awaitingCanary = true;
    placer.worker(2)->awaitingCanary = true;
    TaskDemand canary = gpuTask(0);
    canary.canaryFor = 2;
    const QList<Placement> placed = placer.place(gang({canary}));
    QCOMPARE(placed.size(), 1);
    QCOMPARE(placed.first().workerId, 2);
    // A quarantined worker gets not even a canary (release makes it unverified first).
    placer.release(placed.first());
    placer.worker(2)->quarantined = true;
    QVERIFY(placer.place(gang({canary})).isEmpty());
}

QTEST_GUILESS_MAIN(tst_GangPlacer)
#include "tst_gangplacer.moc"
