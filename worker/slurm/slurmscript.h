#pragma once

#include <QByteArray>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace ddl::worker {

// One DDL task as a step of the Slurm job: the files it is run and followed by.
struct SlurmStepFiles
{
    QString script;  // step.sh: sources env, marks `started`, execs the task
    QString envFile; // step.env
    QString stdoutFile;
    QString stderrFile;
    QString startedFile; // written by the step when the task's code begins
    QString exitFile;    // the step's exit status, written by the batch script when srun returns

    static SlurmStepFiles inFolder(const QString &folder);
};

// The tasks of one DDL job attempt that this worker submits as one Slurm job: one allocation of
// `--ntasks` tasks, each as large as the largest task (the simplest layout that fits a gang of
// unequal roles; Slurm's heterogeneous jobs do not start on small clusters), and one `srun`
// step per task on the node the allocation gave it.
struct SlurmJobPlan
{
    QString name;
    QString partition;
    QString folder; // the batch script and Slurm's own output of it
    int cpusPerTask = 1;
    qint64 memoryPerCpuMb = 0; // 0: Slurm's default
    int gpusPerTask = 0;
    QString srun = QStringLiteral("srun");
    QString scontrol = QStringLiteral("scontrol");
    QList<SlurmStepFiles> steps;

    QString batchScriptPath() const { return folder + u"/batch.sh"; }
    QStringList sbatchArguments() const;
    // Maps the allocation's tasks to nodes (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE) as
    // DDL_SLURM_NODE_<i>, starts every step in the background and writes each one's exit status.
    QByteArray batchScript() const;
};

// What a step runs: the task's kind decides between the DDL runner and the OpenPAI command.
struct SlurmStepLaunch
{
    QStringList argv; // program and arguments, run with exec in codeDir
    QString codeDir;
    // The task's whole environment; where it names the worker's own address with a member's
    // port ("10.0.0.5:4100"), that becomes the node Slurm gave the member.
    QProcessEnvironment environment;
    QString workerAddress;
    QList<int> memberPorts;     // by step index; 0: none
    QStringList memberHostKeys; // by step index: PAI_HOST_IP_<role>_<index>, the address alone
    int stepIndex = 0;
};

// `export KEY="value"` lines for bash, with ${DDL_SLURM_NODE_<i>} where the value names a
// member's address and port; keys that are no shell names are left out.
QByteArray slurmStepEnvironment(const SlurmStepLaunch &launch);
QByteArray slurmStepScript(const SlurmStepLaunch &launch, const SlurmStepFiles &files);
QString shellQuote(const QString &text);

} // namespace ddl::worker
