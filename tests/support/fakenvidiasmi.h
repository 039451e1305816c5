#pragma once

#include <QList>
#include <QProcessEnvironment>
#include <QString>

// A fake nvidia-smi for the tests that run a worker on a machine without a GPU (their names end
// in _fakegpu): a shell script in a folder of its own that answers the worker's three queries
// (the GPUs, their utilisation, the processes computing on them) as a real one does, from files
// the test may rewrite while the worker runs.
class FakeNvidiaSmi
{
public:
    struct Gpu
    {
        int index = 0;
        QString uuid;
        qint64 memoryMb = 16384;
        int utilisationPercent = 37;
        qint64 memoryUsedMb = 1234;
    };
    // A process computing on the GPU of this index.
    struct ComputeApp
    {
        qint64 pid = 0;
        int gpuIndex = 0;
    };

    // One 16 GiB card, 37% busy with 1234 MiB in use, named "Fake GPU" with uuid GPU-fake-0.
    static QList<Gpu> oneGpu() { return {Gpu{0, QStringLiteral("GPU-fake-0")}}; }

    // Writes the script and its answers into folder (made if missing); false when it cannot.
    bool install(const QString &folder, const QList<Gpu> &gpus = oneGpu());
    // The folder of the script, to put first on a worker's PATH.
    QString binDir() const { return m_folder; }
    // The system environment with binDir() first on PATH.
    QProcessEnvironment environment() const;
    // What `--query-compute-apps` lists from now on (nothing after install).
    bool setComputeApps(const QList<ComputeApp> &apps);

private:
    QString m_folder;
    QList<Gpu> m_gpus;
};
