#pragma once

#include "core/result.h"
#include "sandbox/sandbox.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace ddl::worker {

// What one task needs of a container besides what the bubblewrap sandbox shows it (SandboxSpec:
// the same folders, bound at the same paths, read-only or writable alike).
struct ContainerSpec
{
    QString image;   // a reference podman understands: "localhost/ddl-test", "debian:12"
    QString name;    // the container's name, unique on the machine: containerName()
    QString envFile; // KEY=VALUE lines: the task's environment, kept off podman's command line
    SandboxSpec sandbox;
    QList<int> cpuCores;    // --cpuset-cpus; empty: not pinned
    qint64 memoryBytes = 0; // --memory (the cgroup's limit); 0: none
    QList<int> gpus; // minor numbers: --device of the CDI spec (CdiSpec) for each; inside 0..n-1
};

// The second runtime of tasks, beside bubblewrap: podman (Debian 12: podman 4.3) runs a task
// whose job names an image. The task runs as the worker's user with no capabilities, on a
// read-only root, with the task's folders bound where they lie outside, in cgroups that bound its
// CPUs, memory and processes. probe() runs once when the worker starts.
class PodmanRuntime
{
public:
    // Not available: tasks with an image cannot run on this worker.
    PodmanRuntime() = default;

    // /usr/bin/podman where it exists, else podman on PATH.
    static QString defaultPodmanPath();
    // Checks that podman and its OCI runtime (runc) run here and removes the containers an
    // earlier run of this worker left (labelled with workDir). The error says what failed and how
    // to install what is missing.
    static Result<PodmanRuntime> probe(const QString &podman, const QString &workDir);

    bool isAvailable() const { return !m_program.isEmpty(); }
    // The worker wrote the CDI spec of its GPUs (CdiSpec) with this kind: containers can be given
    // GPUs. Empty: they cannot.
    void setGpuKind(const QString &kind) { m_gpuKind = kind; }
    bool hasGpuDevices() const { return !m_gpuKind.isEmpty(); }
    QString program() const { return m_program; }

    // Accepts what can name an image ("debian:12", "localhost/x@sha256:..."); refuses anything
    // podman could take for an option or that no image can be named, saying what is wrong.
    static Status checkImageReference(const QString &image);

    // The container's name of a task: ddl-task-<taskId>.
    static QString containerName(qint64 taskId);

    // The arguments of `podman` that run program with arguments as spec describes, attached, so
    // that the task's stdout and stderr are podman's.
    QStringList runArguments(const ContainerSpec &spec,
                             const QString &program,
                             const QStringList &arguments) const;
    // Sends signal (SIGTERM, SIGKILL) to the container's processes (podman kill); returns at
    // once.
    void signal(const QString &name, int signal) const;
    // Removes the container and whatever still runs in it (podman rm -f); returns at once.
    void remove(const QString &name) const;

private:
    // The label that marks this worker's containers: ddl.workdir=<work folder>.
    QString m_workDirLabel;
    QString m_program;
    QString m_gpuKind;
};

} // namespace ddl::worker
