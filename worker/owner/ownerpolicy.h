#pragma once

#include "owner/availabilitywindows.h"
#include "process/processtree.h"

#include <QObject>
#include <QTimer>
#include <functional>

namespace ddl::worker {

class GpuProcessProbe;

// Of the processes computing on the GPUs, those that are not in the process tree of one of the
// worker's tasks (leaders: the tasks' first processes, each leading its own process group).
QList<qint64> foreignProcesses(const QList<qint64> &gpuPids,
                               const QList<qint64> &taskLeaders,
                               const QList<processtree::ProcessEntry> &table);

// What the machine's owner allows (docs/owners.md): tasks only inside the --available hours, and
// with --only-when-idle only while no other process computes on the GPUs. Checked every few
// seconds; refusal() says why tasks may not run now (empty: they may), changed() when that
// turns.
class OwnerPolicy : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        AvailabilityWindows hours; // empty: any time
        bool onlyWhenIdle = false;
        QString nvidiaSmi; // with onlyWhenIdle
        int checkIntervalMs = 2000;
    };

    // taskLeaders: the first processes of the worker's running tasks.
    OwnerPolicy(const Settings &settings,
                std::function<QList<qint64>()> taskLeaders,
                QObject *parent = nullptr);

    // Checks now, then every checkIntervalMs.
    void start();
    QString refusal() const;
    bool allowsTasks() const { return refusal().isEmpty(); }
    // For the start-up log: what the owner set.
    QString describe() const;

signals:
    void changed(const QString &refusal);

private:
    void check();
    void handleGpuProcesses(const QList<qint64> &pids);
    void update(const QString &outsideHours, const QString &gpuBusy);

    Settings m_settings;
    std::function<QList<qint64>()> m_taskLeaders;
    GpuProcessProbe *m_probe = nullptr;
    QTimer m_timer;
    QString m_outsideHours;
    QString m_gpuBusy;
    bool m_probeFailureLogged = false;
};

} // namespace ddl::worker
