#include "slurmscript.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ddl::worker {

SlurmStepFiles SlurmStepFiles::inFolder(const QString &folder)
{
    SlurmStepFiles files;
    files.script = folder + u"/step.sh"_s;
    files.envFile = folder + u"/step.env"_s;
    files.stdoutFile = folder + u"/stdout"_s;
    files.stderrFile = folder + u"/stderr"_s;
    files.startedFile = folder + u"/started"_s;
    files.exitFile = folder + u"/exit"_s;
    return files;
}

QString shellQuote(const QString &text)
{
    QString quoted = text;
    quoted.replace(u'\'', u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

// The resources every task of the job gets, for sbatch and for each srun.
static QStringList taskResources(const SlurmJobPlan &plan)
{
    QStringList arguments{u"--cpus-per-task=%1"_s.arg(plan.cpusPerTask)};
    if (plan.memoryPerCpuMb > 0)
        arguments << u"--mem-per-cpu=%1"_s.arg(plan.memoryPerCpuMb);
    if (plan.gpusPerTask > 0) {
        // One task: the GRES form labs know; several: per task, wherever each lands.
        arguments << (plan.steps.size() == 1 ? u"--gres=gpu:%1"_s.arg(plan.gpusPerTask)
                                             : u"--gpus-per-task=%1"_s.arg(plan.gpusPerTask));
    }
    return arguments;
}

QStringList SlurmJobPlan::sbatchArguments() const
{
    QStringList arguments{u"--parsable"_s,
                          u"--job-name=%1"_s.arg(name),
                          u"--chdir=%1"_s.arg(folder),
                          u"--output=%1/batch.out"_s.arg(folder),
                          // The steps set their own environment; nothing of the worker's leaks.
                          u"--export=NONE"_s,
                          // A task runs once: Slurm must not run it again after a node fails
                          // (the server decides about retries), and a rerun would truncate
                          // the output files the worker is reading.
                          u"--no-requeue"_s,
                          u"--ntasks=%1"_s.arg(steps.size())};
    if (!partition.isEmpty())
        arguments << u"--partition=%1"_s.arg(partition);
    arguments << taskResources(*this) << batchScriptPath();
    return arguments;
}

QByteArray SlurmJobPlan::batchScript() const
{
    QString script =
        u"#!/bin/bash\n"
        "# Written by ddl-worker: one Slurm step per DDL task of this job.\n"
        "nodes=($("_s +
        shellQuote(scontrol) +
        u" show hostnames \"$SLURM_JOB_NODELIST\"))\n"
        "counts=()\n"
        "IFS=, read -ra groups <<< \"$SLURM_TASKS_PER_NODE\"\n"
        "for g in \"${groups[@]}\"; do\n"
        "  if [[ $g =~ ^([0-9]+)\\(x([0-9]+)\\)$ ]]; then\n"
        "    for ((r = 0; r < BASH_REMATCH[2]; r++)); do counts+=(\"${BASH_REMATCH[1]}\"); done\n"
        "  else counts+=(\"$g\"); fi\n"
        "done\n"
        "slot=0\n"
        "for n in \"${!nodes[@]}\"; do\n"
        "  for ((k = 0; k < ${counts[n]:-0}; k++)); do\n"
        "    export DDL_SLURM_NODE_$slot=\"${nodes[n]}\"; slot=$((slot + 1))\n"
        "  done\n"
        "done\n"_s;
    const QString resources = taskResources(*this).join(u' ');
    for (qsizetype i = 0; i < steps.size(); ++i) {
        const SlurmStepFiles &step = steps[i];
        script += u"( %1 --ntasks=1 --nodes=1 --nodelist=\"$DDL_SLURM_NODE_%2\" %3 --exact "
                  "--export=ALL --input=none --output=%4 --error=%5 /bin/bash %6; "
                  "echo $? > %7.part && mv %7.part %7 ) &\n"_s.arg(shellQuote(srun))
                      .arg(i)
                      .arg(resources,
                           shellQuote(step.stdoutFile),
                           shellQuote(step.stderrFile),
                           shellQuote(step.script),
                           shellQuote(step.exitFile));
    }
    script += u"wait\n"_s;
    return script.toUtf8();
}

QByteArray slurmStepEnvironment(const SlurmStepLaunch &launch)
{
    static const QRegularExpression shellName(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    QString text;
    for (const QString &key : launch.environment.keys()) {
        // Slurm's own binding of GPUs and CPUs holds in a step.
        if (!shellName.match(key).hasMatch() || key == u"CUDA_VISIBLE_DEVICES" ||
            key == u"DDL_CPU_CORES")
            continue;
        QString value = launch.environment.value(key);
        for (const QChar special : {u'\\', u'"', u'$', u'`'})
            value.replace(special, u"\\"_s + special);
        if (!launch.workerAddress.isEmpty()) {
            for (qsizetype i = 0; i < launch.memberPorts.size(); ++i) {
                if (launch.memberPorts[i] <= 0)
                    continue;
                const QRegularExpression hostPort(QRegularExpression::escape(launch.workerAddress) +
                                                  u':' + QString::number(launch.memberPorts[i]) +
                                                  u"(?!\\d)"_s);
                value.replace(hostPort,
                              u"${DDL_SLURM_NODE_%1}:%2"_s.arg(i).arg(launch.memberPorts[i]));
            }
            if (key == u"PAI_CURRENT_CONTAINER_IP" && value == launch.workerAddress)
                value = u"${DDL_SLURM_NODE_%1}"_s.arg(launch.stepIndex);
            const qsizetype member = launch.memberHostKeys.indexOf(key);
            if (member >= 0 && value == launch.workerAddress)
                value = u"${DDL_SLURM_NODE_%1}"_s.arg(member);
        }
        text += u"export %1=\"%2\"\n"_s.arg(key, value);
    }
    return text.toUtf8();
}

QByteArray slurmStepScript(const SlurmStepLaunch &launch, const SlurmStepFiles &files)
{
    QStringList argv;
    for (const QString &word : launch.argv)
        argv << shellQuote(word);
    return (u"#!/bin/bash\n"
            "# Written by ddl-worker: one DDL task as a Slurm step.\n"
            ". %1 || exit 127\n"
            "cd %2 || exit 127\n"
            ": > %3\n"
            "exec %4\n"_s.arg(shellQuote(files.envFile),
                              shellQuote(launch.codeDir),
                              shellQuote(files.startedFile),
                              argv.join(u' ')))
        .toUtf8();
}

} // namespace ddl::worker
