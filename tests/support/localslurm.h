#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>

// A private single-node Slurm for a test: tests/support/slurmlocal.py (the same code that
// bench/bench_slurm_vs_ddl.py starts its Slurm with) run as a process, with its own munged,
// slurmctld and slurmd, state and logs in a temporary folder of its own (reachable by all, as
// munged wants its socket's folders). It needs root and the Debian packages
// slurm-wlm and munge; where either is missing, start() fails with unavailable() set and why()
// saying what is missing.
class LocalSlurm
{
public:
    struct Options
    {
        int cpus = 2;
        int memoryMb = 2048;
        int gpus = 0; // GRES gpu with stand-in device files: counted and allocated, nothing bound
        QString partition = QStringLiteral("debug");
    };

    explicit LocalSlurm(const Options &options);
    ~LocalSlurm();

    // Returns once the node is idle.
    bool start(int timeoutMs = 90000);
    void stop();
    bool unavailable() const { return m_unavailable; }
    QString why() const { return m_why; }
    // This environment with SLURM_CONF naming the cluster's slurm.conf.
    QProcessEnvironment environment() const;

    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    // A Slurm client command (sbatch, squeue, scancel, ...) against this cluster.
    Run run(const QString &program, const QStringList &arguments, int timeoutMs = 30000) const;

private:
    QTemporaryDir m_dir;
    Options m_options;
    std::unique_ptr<QProcess> m_process;
    QString m_conf;
    QString m_why;
    bool m_unavailable = false;
};
