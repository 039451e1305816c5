#include "gangplacer.h"

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
            if (cpus >= task.cpus && memory >= task.memoryMb) {
                chosen = worker(id);
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

GangPlacer::Summary GangPlacer::summary() const
{
    Summary cluster;
    for (const WorkerNode &node : m_workers) {
        if (!node.online)
            continue;
        ++cluster.online;
        cluster.largestGpus = std::max(cluster.largestGpus, node.totalGpus);
        cluster.largestCpus = std::max(cluster.largestCpus, node.totalCpus);
        cluster.largestMemory = std::max(cluster.largestMemory, node.totalMemoryMb);
        cluster.freeSlots += node.freeSlots;
        if (node.freeSlots > 0) {
            cluster.largestFreeGpus = std::max(cluster.largestFreeGpus, node.freeGpus());
            cluster.largestFreeCpus = std::max(cluster.largestFreeCpus, node.freeCpus);
            cluster.largestFreeMemory = std::max(cluster.largestFreeMemory, node.freeMemoryMb);
            if (node.freeGpus() > 0)
                cluster.freeGpus.append(node.freeGpus());
        }
    }
    std::sort(cluster.freeGpus.begin(), cluster.freeGpus.end(), std::greater<>());
    return cluster;
}

QString GangPlacer::explain(const QList<TaskDemand> &tasks, const Summary &cluster)
{
    const auto &[online, largestGpus, largestFreeGpus, largestCpus, largestFreeCpus, largestMemory,
                 largestFreeMemory, freeSlots, freeGpus]
        = cluster;
    if (online == 0)
        return QStringLiteral("no worker is online; start a ddl-worker");
    int needGpus = 0, needCpus = 0;
    qint64 needMemory = 0;
    for (const TaskDemand &task : tasks) {
        needGpus = std::max(needGpus, task.gpus);
        needCpus = std::max(needCpus, task.cpus);
        needMemory = std::max(needMemory, task.memoryMb);
    }
    const auto describe = [](const QString &what, qint64 need, qint64 largest, bool never) {
        return never ? QStringLiteral("needs %1 %2 on one worker; the largest worker has %3, so "
                                      "it cannot run until a bigger one joins")
                           .arg(need)
                           .arg(what)
                           .arg(largest)
                     : QStringLiteral("needs %1 %2 on one worker; the largest free is %3")
                           .arg(need)
                           .arg(what)
                           .arg(largest);
    };
    if (needGpus > largestGpus)
        return describe(QStringLiteral("GPUs"), needGpus, largestGpus, true);
    if (needCpus > largestCpus)
        return describe(QStringLiteral("CPUs"), needCpus, largestCpus, true);
    if (needMemory > largestMemory)
        return describe(QStringLiteral("MB of memory"), needMemory, largestMemory, true);
    if (tasks.size() > freeSlots) {
        return QStringLiteral("needs %1 task slots at once; %2 are free").arg(tasks.size()).arg(
            freeSlots);
    }
    if (needGpus > largestFreeGpus)
        return describe(QStringLiteral("GPUs"), needGpus, largestFreeGpus, false);
    if (needCpus > largestFreeCpus)
        return describe(QStringLiteral("CPUs"), needCpus, largestFreeCpus, false);
    if (needMemory > largestFreeMemory)
        return describe(QStringLiteral("MB of memory"), needMemory, largestFreeMemory, false);
    // Each task fits somewhere; do their GPUs fit all at once? (largest first, as placed)
    QList<int> gpuDemands;
    for (const TaskDemand &task : tasks) {
        if (task.gpus > 0)
            gpuDemands.append(task.gpus);
    }
    std::sort(gpuDemands.begin(), gpuDemands.end(), std::greater<>());
    QList<int> left = freeGpus;
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
        for (int i = 0; i < std::min<qsizetype>(freeGpus.size(), 8); ++i)
            shown << QString::number(freeGpus.at(i));
        if (freeGpus.size() > 8)
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

} // namespace ddl::server
