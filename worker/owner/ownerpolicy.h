#pragma once

#include "owner/availabilitywindows.h"
#include "gpu/computeapps.h"
#include "owner/inputactivity.h"
#include "process/processtree.h"

#include <QObject>
#include <QTimer>
#include <functional>

namespace ddl::worker {

class NvidiaSmiQuery;

// Of the processes computing on the GPUs, those that are not in the process tree of one of the
// worker's tasks (leaders: the tasks' first processes, each leading its own process group).
QList<qint64> foreignProcesses(const QList<qint64> &gpuPids,
                               const QList<qint64> &taskLeaders,
                               const QList<processtree::ProcessEntry> &table);

// What the machine's owner allows (docs/owners.md): tasks only inside the --available hours,
// with --idle-input-minutes only when nobody used the consoles, terminals or input devices for
// that long, and with --only-when-idle only while no other process computes on the GPUs.
// Checked every few seconds; refusal() says why tasks may not run now (empty: they may),
// changed() when that turns.
class OwnerPolicy : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        AvailabilityWindows hours; // empty: any time
        bool onlyWhenIdle = false;
        QString nvidiaSmi; // with onlyWhenIdle
        // The UUIDs of the GPUs the owner lends (--lend-gpus): only processes on these count;
        // empty: those on any GPU.
        QStringList watchedGpus;
        qint64 idleInputMs = 0; // 0: input is not watched
        QStringList inputDevices = InputActivity::defaultPatterns();
        int checkIntervalMs = 2000;
    };

    // taskLeaders: the first processes of the worker's running tasks.
    OwnerPolicy(const Settings &settings,
                std::function<QList<qint64>()> taskLeaders,
                QObject *parent = nullptr);

    // Checks now, then every checkIntervalMs.
    void start();
    // New rules while running (the owner changed the config): checked at once; what the last
    // GPU query said stands until the next one answers.
    void reconfigure(const Settings &settings);
    QString refusal() const;
    bool allowsTasks() const { return refusal().isEmpty(); }
    // For the log: what the owner set ("none" when tasks may always run).
    QString describe() const;

signals:
    void changed(const QString &refusal);

private:
    void check();
    void makeProbe();
    void handleGpuProcesses(const QList<ComputeApp> &apps);
    void update(const QString &outsideHours, const QString &inputBusy, const QString &gpuBusy);
    QString outsideHours() const;
    QString inputBusy() const;

    Settings m_settings;
    std::function<QList<qint64>()> m_taskLeaders;
    NvidiaSmiQuery *m_probe = nullptr;
    QTimer m_timer;
    InputActivity m_input;
    QString m_outsideHours;
    QString m_inputBusy;
    QString m_gpuBusy;
    bool m_probeFailureLogged = false;
};

} // namespace ddl::worker
