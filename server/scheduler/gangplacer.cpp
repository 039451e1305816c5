#include "gangplacer.h"

#include <QMap>

#include <algorithm>

namespace ddl::server {

GangPlacer::Key GangPlacer::keyOf(const WorkerNode &node)
{
    return {node.freeGpus(), node.freeCpus, node.freeMemoryMb, node.id};
}

void GangPlacer::index(const WorkerNode &node)
{
    if (node.online && node.freeSlots > 0)
        m_free.emplace(keyOf(node), node.id);
}

void GangPlacer::unindex(const WorkerNode &node)
{
    m_free.erase(keyOf(node));
}

void GangPlacer::addWorker(const WorkerNode &declared)
{
    removeWorker(declared.id);
    WorkerNode node = declared;
    node.gpuBusy = QList<bool>(node.totalGpus, false);
    node.freeCpus = node.totalCpus;
    node.freeMemoryMb = node.totalMemoryMb;
    node.freeSlots = node.totalSlots;
    node.nextPort = FirstPort;
    m_workers.insert(node.id, node);
    index(node);
}

void GangPlacer::removeWorker(qint64 workerId)
{
    if (const auto it = m_workers.find(workerId); it != m_workers.end()) {
        unindex(*it);
        m_workers.erase(it);
    }
}

void GangPlacer::updateWorker(const WorkerNode &declared)
{
    WorkerNode *node = worker(declared.id);
    if (!node) {
        addWorker(declared);
        return;
    }
    unindex(*node);
    // Keep what running tasks hold; move the free amounts by the change of the totals.
    node->freeCpus += declared.totalCpus - node->totalCpus;
    node->freeMemoryMb += declared.totalMemoryMb - node->totalMemoryMb;
    node->freeSlots += declared.totalSlots - node->totalSlots;
    // GPUs come and go by index; a GPU that disappears under a task is the task's loss.
    node->gpuBusy.resize(declared.totalGpus, false);
    node->totalCpus = declared.totalCpus;
    node->totalMemoryMb = declared.totalMemoryMb;
    node->totalSlots = declared.totalSlots;
    node->totalGpus = declared.totalGpus;
    node->address = declared.address;
    node->online = declared.online;
    node->ownerBusy = declared.ownerBusy;
    node->gpuType = declared.gpuType;
    node->runtimes = declared.runtimes;
    index(*node);
}

WorkerNode *GangPlacer::worker(qint64 workerId)
{
    const auto it = m_workers.find(workerId);
    return it == m_workers.end() ? nullptr : &*it;
}

int GangPlacer::allocatePorts(WorkerNode &node, int count)
{
    const auto runIsFree = [&node, count](int first) {
        for (int port = first; port < first + count; ++port) {
            if (node.usedPorts.contains(port))
                return false;
        }
        return true;
    };
    for (int tries = 0; tries < PortCount; ++tries) {
        const int port = node.nextPort;
        node.nextPort = FirstPort + (node.nextPort + 1 - FirstPort) % PortCount;
        // A run does not wrap around the end of the range.
        if (port + count > FirstPort + PortCount || !runIsFree(port))
            continue;
        for (int taken = port; taken < port + count; ++taken)
            node.usedPorts.insert(taken);
        node.nextPort = FirstPort + (port + count - FirstPort) % PortCount;
        return port;
    }
    return 0;
}

Placement GangPlacer::takeOn(WorkerNode &node, const TaskDemand &task)
{
    unindex(node);
    Placement placement{task.taskId, node.id, {}, 0, task.cpus, task.memoryMb, task.ports};
    for (int index = 0; index < node.gpuBusy.size() && placement.gpuIndices.size() < task.gpus;
         ++index) {
        if (!node.gpuBusy[index]) {
            node.gpuBusy[index] = true;
            placement.gpuIndices.append(index);
        }
    }
    node.freeCpus -= task.cpus;
    node.freeMemoryMb -= task.memoryMb;
    node.freeSlots -= 1;
    placement.port = allocatePorts(node, task.ports);
    index(node);
    return placement;
}

void GangPlacer::take(const Placement &placement)
{
    book(placement, true);
}

void GangPlacer::release(const Placement &placement)
{
    book(placement, false);
}

void GangPlacer::book(const Placement &placement, bool taken)
{
    WorkerNode *node = worker(placement.workerId);
    if (!node)
        return;
    unindex(*node);
    for (const int index : placement.gpuIndices) {
        if (index >= 0 && index < node->gpuBusy.size())
            node->gpuBusy[index] = taken;
    }
    const int sign = taken ? -1 : 1;
    node->freeCpus += sign * placement.cpus;
    node->freeMemoryMb += sign * placement.memoryMb;
    node->freeSlots += sign;
    for (int port = placement.port; port < placement.port + placement.portCount; ++port) {
        if (taken)
            node->usedPorts.insert(port);
        else
            node->usedPorts.remove(port);
    }
    index(*node);
}

QList<Placement> GangPlacer::place(const QList<TaskDemand> &tasks)
{
    QList<TaskDemand> order = tasks;
    std::stable_sort(order.begin(), order.end(), [](const TaskDemand &a, const TaskDemand &b) {
        return std::tie(a.gpus, a.memoryMb, a.cpus) > std::tie(b.gpus, b.memoryMb, b.cpus);
    });
    QList<Placement> placed;
    placed.reserve(order.size());
    for (const TaskDemand &task : std::as_const(order)) {
        WorkerNode *chosen = nullptr;
        // The tightest fit on GPUs first; among equals, the fewest free CPUs and memory.
        for (auto it = m_free.lower_bound({task.gpus, 0, 0, 0}); it != m_free.end(); ++it) {
            const auto &[gpus, cpus, memory, id] = it->first;
            WorkerNode *candidate = worker(id);
            if (cpus >= task.cpus && memory >= task.memoryMb && task.acceptsWorker(*candidate)) {
                chosen = candidate;
                break;
            }
        }
        if (!chosen) {
            for (const Placement &undo : std::as_const(placed))
                release(undo);
            return {};
        }
        placed.append(takeOn(*chosen, task));
    }
    return placed;
}

GangPlacer::Summary GangPlacer::summary(const TaskDemand &needs) const
{
    Summary cluster;
    for (const WorkerNode &node : m_workers) {
        if (node.online && needs.canaryFor == 0) {
            cluster.quarantined += node.quarantined ? 1 : 0;
            cluster.awaitingCanary += !node.quarantined && node.awaitingCanary ? 1 : 0;
            if (!node.quarantined && !node.awaitingCanary)
                cluster.mostTrust = std::max(cluster.mostTrust, node.trust);
        }
        if (!needs.acceptsWorker(node))
            continue;
        if (!node.online) {
            cluster.ownerBusy += node.ownerBusy ? 1 : 0;
            continue;
        }
        ++cluster.online;
        cluster.largestGpus = std::max(cluster.largestGpus, node.totalGpus);
        cluster.largestCpus = std::max(cluster.largestCpus, node.totalCpus);
        cluster.largestMemory = std::max(cluster.largestMemory, node.totalMemoryMb);
        cluster.freeSlots += node.freeSlots;
        cluster.largestFreeGpus = std::max(cluster.largestFreeGpus, node.freeGpus());
        cluster.largestFreeCpus = std::max(cluster.largestFreeCpus, node.freeCpus);
        cluster.largestFreeMemory = std::max(cluster.largestFreeMemory, node.freeMemoryMb);
        if (node.freeSlots > 0 && node.freeGpus() > 0)
            cluster.freeGpus.append(node.freeGpus());
    }
    std::sort(cluster.freeGpus.begin(), cluster.freeGpus.end(), std::greater<>());
    return cluster;
}

namespace {

// "1 GPU", "2 GPUs".
QString count(qint64 n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString gpus(qint64 n)
{
    return count(n, "GPU", "GPUs");
}

QString cpus(qint64 n)
{
    return count(n, "CPU", "CPUs");
}

QString memory(qint64 mb)
{
    return QStringLiteral("%1 MB of memory").arg(mb);
}

// "a", "a and b", "a, b and c".
QString joinAnd(const QStringList &items)
{
    if (items.size() <= 1)
        return items.value(0);
    return QStringList(items.first(items.size() - 1)).join(QStringLiteral(", ")) +
           QStringLiteral(" and ") + items.last();
}

// The most any one task of the gang asks for, per resource.
TaskDemand largestDemand(const QList<TaskDemand> &tasks)
{
    TaskDemand largest{0, 0, 0, 0};
    for (const TaskDemand &task : tasks) {
        largest.gpus = std::max(largest.gpus, task.gpus);
        largest.cpus = std::max(largest.cpus, task.cpus);
        largest.memoryMb = std::max(largest.memoryMb, task.memoryMb);
    }
    return largest;
}

} // namespace

TaskDemand GangPlacer::needsOf(const QList<TaskDemand> &tasks)
{
    TaskDemand needs;
    for (const TaskDemand &task : tasks) {
        if (needs.gpuType.isEmpty())
            needs.gpuType = task.gpuType;
        if (needs.containerImage.isEmpty())
            needs.containerImage = task.containerImage;
        // GPUs inside a container need a worker that gives them (TaskDemand::acceptsWorker).
        if (!task.containerImage.isEmpty())
            needs.gpus = std::max(needs.gpus, task.gpus);
        needs.minTrust = std::max(needs.minTrust, task.minTrust);
        if (needs.canaryFor == 0)
            needs.canaryFor = task.canaryFor;
    }
    return needs;
}

bool GangPlacer::anyWorkerFits(const TaskDemand &needs)
{
    return needs.gpuType.isEmpty() && needs.containerImage.isEmpty() && needs.minTrust <= 0
           && needs.canaryFor == 0;
}

QString GangPlacer::kindOfWorker(const TaskDemand &needs)
{
    QStringList kind;
    if (!needs.gpuType.isEmpty())
        kind << QStringLiteral("GPU type ") + needs.gpuType;
    if (!needs.containerImage.isEmpty())
        kind << (needs.gpus > 0 ? QStringLiteral("podman with GPUs (CDI)")
                                : QStringLiteral("podman"));
    if (needs.minTrust > 0)
        kind << QStringLiteral("trust >= %1").arg(needs.minTrust);
    return joinAnd(kind);
}

// "a container runtime (podman) for image ddl://x", with the GPU type when the gang has one.
static QString containerNeed(const TaskDemand &needs)
{
    const QString typed = needs.gpuType.isEmpty()
                              ? QString()
                              : QStringLiteral("GPU type %1 and ").arg(needs.gpuType);
    const QString gpus = needs.gpus > 0 ? QStringLiteral(" that gives containers GPUs (CDI)")
                                        : QString();
    return typed
           + QStringLiteral("a container runtime (podman)%1 for image %2")
                 .arg(gpus, needs.containerImage);
}

// The ddl-worker options that make a worker of the kind the gang needs.
static QString workerOptions(const TaskDemand &needs)
{
    QStringList options;
    if (!needs.gpuType.isEmpty())
        options << QStringLiteral("--gpu-type ") + needs.gpuType;
    if (!needs.containerImage.isEmpty())
        options << QStringLiteral("--container-runtime podman");
    QString line = options.join(u' ');
    // The worker writes the CDI spec itself when it can (docs/images.md).
    if (!needs.containerImage.isEmpty() && needs.gpus > 0)
        line += QStringLiteral(", as root, on a machine where nvidia-smi sees its GPUs");
    return line;
}

QString GangPlacer::exceedsLargest(const QList<TaskDemand> &tasks, const Summary &cluster)
{
    const TaskDemand need = largestDemand(tasks);
    QStringList needs, has;
    if (need.gpus > cluster.largestGpus) {
        needs << gpus(need.gpus);
        has << gpus(cluster.largestGpus);
    }
    if (need.cpus > cluster.largestCpus) {
        needs << cpus(need.cpus);
        has << cpus(cluster.largestCpus);
    }
    if (need.memoryMb > cluster.largestMemory) {
        needs << memory(need.memoryMb);
        has << QStringLiteral("%1 MB").arg(cluster.largestMemory);
    }
    if (needs.isEmpty())
        return {};
    return QStringLiteral("needs %1 on one worker; the largest worker has %2")
        .arg(joinAnd(needs), joinAnd(has));
}

QString GangPlacer::explain(const QList<TaskDemand> &tasks, const Summary &cluster)
{
    const TaskDemand needs = needsOf(tasks);
    if (anyWorkerFits(needs))
        return explainUntyped(tasks, cluster);
    if (cluster.online == 0 && needs.canaryFor != 0)
        return QStringLiteral("a canary for worker %1, which is not online or has no room now")
            .arg(needs.canaryFor);
    if (cluster.online == 0 && needs.minTrust > 0) {
        // Workers still proving themselves may be trusted enough soon.
        const QString awaiting =
            cluster.awaitingCanary == 0
                ? QString()
                : QStringLiteral("; %1 waiting for a canary check").arg(cluster.awaitingCanary);
        return QStringLiteral("needs a worker with %1; no online worker is one (the most trusted "
                              "online worker has trust %2%3; see docs/trust.md)")
            .arg(kindOfWorker(needs))
            .arg(cluster.mostTrust)
            .arg(awaiting);
    }
    if (cluster.online == 0) {
        if (needs.containerImage.isEmpty()) {
            return QStringLiteral("needs GPU type %1; no online worker has it (start a ddl-worker "
                                  "with --gpu-type %1)")
                .arg(needs.gpuType);
        }
        return QStringLiteral("needs a worker with %1; none is online (start a ddl-worker with %2)")
            .arg(containerNeed(needs), workerOptions(needs));
    }
    return QStringLiteral("on the workers with %1, %2")
        .arg(kindOfWorker(needs), explainUntyped(tasks, cluster));
}

QString GangPlacer::explainUntyped(const QList<TaskDemand> &tasks, const Summary &cluster)
{
    if (cluster.online == 0 && cluster.ownerBusy > 0)
        return cluster.ownerBusy == 1
                   ? QStringLiteral("the only worker online is in use by its owner")
                   : QStringLiteral("the %1 workers online are in use by their owners")
                         .arg(cluster.ownerBusy);
    if (cluster.online == 0 && cluster.quarantined + cluster.awaitingCanary > 0) {
        QStringList held;
        if (cluster.awaitingCanary > 0)
            held << (cluster.awaitingCanary == 1
                         ? QStringLiteral("1 waits for its canary check")
                         : QStringLiteral("%1 wait for their canary checks")
                               .arg(cluster.awaitingCanary));
        if (cluster.quarantined > 0)
            held << (cluster.quarantined == 1
                         ? QStringLiteral("1 is quarantined")
                         : QStringLiteral("%1 are quarantined").arg(cluster.quarantined));
        return QStringLiteral("no online worker takes tasks now: %1 (docs/trust.md)")
            .arg(joinAnd(held));
    }
    if (cluster.online == 0)
        return QStringLiteral("no worker is online; start a ddl-worker");
    if (const QString never = exceedsLargest(tasks, cluster); !never.isEmpty())
        return never + QStringLiteral(", so it cannot run until a bigger one joins");
    // Every resource that is short now, each with what is free.
    const TaskDemand need = largestDemand(tasks);
    QStringList shortages;
    if (tasks.size() > cluster.freeSlots) {
        shortages << QStringLiteral("%1 at once (%2 free)")
                         .arg(count(tasks.size(), "task slot", "task slots"),
                              cluster.freeSlots == 1
                                  ? QStringLiteral("1 is")
                                  : QStringLiteral("%1 are").arg(cluster.freeSlots));
    }
    if (need.gpus > cluster.largestFreeGpus) {
        shortages << QStringLiteral("%1 on one worker (the most free is %2)")
                         .arg(gpus(need.gpus))
                         .arg(cluster.largestFreeGpus);
    }
    if (need.cpus > cluster.largestFreeCpus) {
        shortages << QStringLiteral("%1 on one worker (the most free is %2)")
                         .arg(cpus(need.cpus))
                         .arg(cluster.largestFreeCpus);
    }
    if (need.memoryMb > cluster.largestFreeMemory) {
        shortages << QStringLiteral("%1 on one worker (the most free is %2 MB)")
                         .arg(memory(need.memoryMb))
                         .arg(cluster.largestFreeMemory);
    }
    if (!shortages.isEmpty())
        return QStringLiteral("needs ") + joinAnd(shortages);
    // Each task fits somewhere; do their GPUs fit all at once? (largest first, as placed)
    QList<int> gpuDemands;
    for (const TaskDemand &task : tasks) {
        if (task.gpus > 0)
            gpuDemands.append(task.gpus);
    }
    std::sort(gpuDemands.begin(), gpuDemands.end(), std::greater<>());
    QList<int> left = cluster.freeGpus;
    bool gpusFit = true;
    for (const int demand : std::as_const(gpuDemands)) {
        const auto it = std::find_if(left.begin(), left.end(), [demand](int free) {
            return free >= demand;
        });
        if (it == left.end()) {
            gpusFit = false;
            break;
        }
        *it -= demand;
    }
    if (!gpusFit) {
        QStringList shown;
        for (int i = 0; i < std::min<qsizetype>(cluster.freeGpus.size(), 8); ++i)
            shown << QString::number(cluster.freeGpus.at(i));
        if (cluster.freeGpus.size() > 8)
            shown << QStringLiteral("...");
        return QStringLiteral("its %1 tasks need GPUs (%2) on their workers all at once; the free "
                              "GPUs per worker are %3")
            .arg(tasks.size())
            .arg([&] {
                QStringList parts;
                for (const int demand : std::as_const(gpuDemands))
                    parts << QString::number(demand);
                return parts.join(QStringLiteral(" + "));
            }())
            .arg(shown.isEmpty() ? QStringLiteral("none") : shown.join(QStringLiteral(", ")));
    }
    return QStringLiteral("its %1 tasks must start together and do not all fit on the free "
                          "workers yet")
        .arg(tasks.size());
}

QString GangPlacer::neverPlaceable(const QList<TaskDemand> &tasks) const
{
    // Every registered worker that takes tasks (a worker declaring no slots takes none), has
    // the gang's GPU type and runs containers when the gang needs one, online or not, with
    // nothing running on it.
    const TaskDemand needs = needsOf(tasks);
    const QString &gpuType = needs.gpuType;
    const TaskDemand typed{.gpuType = gpuType};
    GangPlacer empty;
    QMap<QString, QString> otherTypes; // lower case -> as announced
    bool anyTakesTasks = false;
    int ofType = 0;
    for (const WorkerNode &node : m_workers) {
        if (node.totalSlots <= 0)
            continue;
        anyTakesTasks = true;
        // Trust grows and quarantine ends (docs/trust.md): never a verdict for ever.
        WorkerNode idle = node;
        idle.online = true;
        idle.quarantined = false;
        idle.awaitingCanary = false;
        idle.trust = 100;
        if (!typed.acceptsWorker(idle)) {
            if (!node.gpuType.isEmpty())
                otherTypes.insert(node.gpuType.toLower(), node.gpuType);
            continue;
        }
        ++ofType;
        if (!needs.acceptsWorker(idle))
            continue;
        empty.addWorker(idle);
    }
    // No such worker yet is no verdict: workers may come later.
    if (!anyTakesTasks || tasks.isEmpty())
        return {};
    if (ofType == 0) {
        QStringList types = otherTypes.values();
        if (types.size() > 8)
            types = types.first(8) << QStringLiteral("others");
        return QStringLiteral("needs GPU type %1; no registered worker has it (%2)")
            .arg(gpuType,
                 types.isEmpty() ? QStringLiteral("none announces a GPU type")
                                 : QStringLiteral("they have ") + joinAnd(types));
    }
    if (empty.m_workers.isEmpty()) {
        return QStringLiteral("needs a worker with %1; no registered worker has one (start a "
                              "ddl-worker with %2)")
            .arg(containerNeed(needs), workerOptions(needs));
    }
    if (!empty.place(tasks).isEmpty())
        return {};
    const QString reason = empty.neverPlaceableUntyped(tasks);
    TaskDemand kind = needs; // trust is no part of why it can never run
    kind.minTrust = 0;
    return anyWorkerFits(kind)
               ? reason
               : QStringLiteral("on the workers with %1, %2").arg(kindOfWorker(kind), reason);
}

QString GangPlacer::neverPlaceableUntyped(const QList<TaskDemand> &tasks) const
{
    const Summary cluster = summary();
    if (const QString never = exceedsLargest(tasks, cluster); !never.isEmpty())
        return never;
    for (const TaskDemand &task : tasks) {
        const bool fits =
            std::any_of(m_workers.cbegin(), m_workers.cend(), [&task](const WorkerNode &node) {
                return node.totalGpus >= task.gpus && node.totalCpus >= task.cpus &&
                       node.totalMemoryMb >= task.memoryMb;
            });
        if (!fits) {
            return QStringLiteral("a task needs %1 on one worker; no registered worker has all "
                                  "of them")
                .arg(joinAnd({gpus(task.gpus), cpus(task.cpus), memory(task.memoryMb)}));
        }
    }
    if (tasks.size() > cluster.freeSlots) {
        return QStringLiteral("needs %1 at once; the registered workers have %2 in all")
            .arg(count(tasks.size(), "task slot", "task slots"))
            .arg(cluster.freeSlots);
    }
    return QStringLiteral("its %1 tasks do not fit together on the registered workers (%2), even "
                          "with nothing else running")
        .arg(tasks.size())
        .arg(count(cluster.online, "worker", "workers"));
}

} // namespace ddl::server
