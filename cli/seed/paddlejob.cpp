#include "paddlejob.h"

#include "resourcestring.h"

#include "jobspec/jobspecvalidator.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static const QString PserverRole = u"pserver"_s;
static const QString TrainerRole = u"trainer"_s;

QList<OptionSpec> PaddleJob::submitOptions()
{
    QList<OptionSpec> options{
        OptionSpec::make(
            u"job-name"_s, u"NAME"_s, tr("the job's name (default: the package folder's name)")),
        OptionSpec::make(
            u"package-path"_s,
            u"DIR"_s,
            tr("the folder with the trainer's code; sent as it is on disk (.git left out)")),
        OptionSpec::make(
            u"entry-point"_s, u"COMMAND"_s, tr("what each trainer runs, e.g. \"python train.py\"")),
        OptionSpec::make(
            u"module"_s, u"MODULE"_s, tr("instead of --entry-point: run python3 -m MODULE")),
        OptionSpec::make(
            u"pserver-entry-point"_s,
            u"COMMAND"_s,
            tr("DDL: what each pserver runs (default: the trainers' entry point, which tells the "
               "roles apart by PADDLE_TRAINING_ROLE)")),
        OptionSpec::make(u"trainers"_s, u"N"_s, tr("trainer tasks (default 1)")),
        OptionSpec::make(u"pservers"_s, u"N"_s, tr("parameter server tasks (default 0)")),
        OptionSpec::make(
            u"trainer-cpu"_s, u"CPUS"_s, tr("CPUs of each trainer: 1, 0.5, 500m (default 1)")),
        OptionSpec::make(u"trainer-gpu"_s,
                         u"N"_s,
                         tr("GPUs of each trainer (default 1 with --use-gpu, else 0)")),
        OptionSpec::make(
            u"trainer-gpu-num"_s, u"N"_s, tr("the seed's other spelling of --trainer-gpu")),
        OptionSpec::make(u"gpu-num"_s, u"N"_s, tr("the seed's other spelling of --trainer-gpu")),
        OptionSpec::make(
            u"trainer-mem"_s, u"SIZE"_s, tr("memory of each trainer: 1Gi, 512Mi (default 2Gi)")),
        OptionSpec::make(u"pserver-cpu"_s, u"CPUS"_s, tr("CPUs of each pserver (default 1)")),
        OptionSpec::make(u"pserver-mem"_s, u"SIZE"_s, tr("memory of each pserver (default 2Gi)")),
        OptionSpec::make(
            u"base-image"_s, u"IMAGE"_s, tr("the image the tasks run in (the job's image)")),
        OptionSpec::make(u"use-gpu"_s, u"BOOL"_s, tr("whether trainers use GPUs (true/false)")),
        OptionSpec::make(
            u"env"_s, u"KEY=VALUE"_s, tr("an environment variable of every task (repeatable)")),
        OptionSpec::make(
            u"input"_s,
            u"DIR|NAME"_s,
            tr("the training data: a folder (uploaded) or the name of your dataset on the server")),
        OptionSpec::make(
            u"output"_s,
            u"DIR"_s,
            tr("kept as PAI_OUTPUT_DIR_URI; the outputs become the job's artifacts (ddlcli "
               "download)"))};
    for (OptionSpec &option : options) {
        if (option.name == u"use-gpu"_s)
            option.valueOptional = true;
        if (option.name == u"env"_s)
            option.repeatable = true;
    }
    return options + SeedFlags::queueOptions();
}

QStringList PaddleJob::submitOnlyOptions()
{
    QStringList names;
    for (const OptionSpec &option : submitOptions())
        names << option.name;
    return names;
}

QString
PaddleJob::roleCommand(const QString &role, int trainers, int pservers, const QString &entryPoint)
{
    const bool trainer = role == TrainerRole;
    // The host list of role 0 is the pservers' ("address:port,..."): the gang is placed whole,
    // so every address is known before any task starts.
    QString exports = u"export PADDLE_TRAINING_ROLE=%1 TRAINING_ROLE=%1 PADDLE_TRAINERS_NUM=%2 "
                      u"PADDLE_PSERVERS_NUM=%3"_s.arg(trainer ? u"TRAINER"_s : u"PSERVER"_s)
                          .arg(trainers)
                          .arg(pservers);
    exports += pservers > 0 ? u" PADDLE_PSERVER_ENDPOINTS=\"$PAI_TASK_ROLE_0_HOST_LIST\""_s
                            : u" PADDLE_PSERVER_ENDPOINTS="_s;
    if (trainer)
        exports += u" PADDLE_TRAINER_ID=\"$PAI_TASK_ROLE_INDEX\""_s;
    exports += u" PADDLE_CURRENT_ENDPOINT=\"$PAI_CURRENT_CONTAINER_IP:$PAI_CURRENT_CONTAINER_PORT\""
               u" PADDLE_PORT=\"$PAI_CURRENT_CONTAINER_PORT\"; "_s;
    return exports + entryPoint;
}

static bool moduleExists(const QString &packageFolder, const QString &module)
{
    const QString path = QDir(packageFolder).filePath(QString(module).replace(u'.', u'/'));
    return QFileInfo(path + u".py"_s).isFile() || QFileInfo(path + u"/__main__.py"_s).isFile();
}

Result<QString>
PaddleJob::resolveModule(const QString &module, const QString &packageFolder, QStringList &notes)
{
    static const QRegularExpression dotted(
        u"^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"_s);
    if (!dotted.match(module).hasMatch()) {
        return Error::make(ErrorCode::Usage,
                           tr("--module=%1 is not valid: expected a Python module name such as "
                              "quick_start.train")
                               .arg(module),
                           u"module"_s);
    }
    if (moduleExists(packageFolder, module))
        return module;
    // The seed writes --package-path=$PWD/quick_start --module=quick_start.train: the package's
    // own folder name comes first, but the folder's contents are what is sent.
    const QString folderName = QFileInfo(packageFolder).fileName();
    if (module.startsWith(folderName + u'.')) {
        const QString inner = module.mid(folderName.size() + 1);
        if (moduleExists(packageFolder, inner)) {
            notes << tr("--module=%1: the package is the contents of %2, so the tasks run "
                        "python3 -m %3")
                         .arg(module, folderName, inner);
            return inner;
        }
    }
    return Error::make(ErrorCode::NotFound,
                       tr("--module=%1: %2 has no %3.py (nor %3/__main__.py); --module names a "
                          "module inside --package-path, run as python3 -m MODULE")
                           .arg(module, packageFolder, QString(module).replace(u'.', u'/')),
                       u"module"_s);
}

// The trainer's GPUs from --use-gpu and the three spellings of --trainer-gpu.
static Result<int> trainerGpus(const ParsedArguments &arguments)
{
    QString given;
    for (const QString &flag : {u"trainer-gpu"_s, u"trainer-gpu-num"_s, u"gpu-num"_s}) {
        if (!arguments.isSet(flag))
            continue;
        if (!given.isEmpty()) {
            return Error::make(ErrorCode::Usage,
                               PaddleJob::tr("--%1 and --%2 both set the trainers' GPUs; give one")
                                   .arg(given, flag),
                               flag);
        }
        given = flag;
    }
    Result<bool> useGpu = SeedFlags::boolean(arguments, u"use-gpu"_s, false);
    if (!useGpu)
        return useGpu.error();
    if (given.isEmpty())
        return *useGpu ? 1 : 0;
    Result<int> gpus = ResourceString::gpus(arguments.value(given), u"--"_s + given);
    if (!gpus)
        return gpus.error();
    if (arguments.isSet(u"use-gpu"_s) && *useGpu != (*gpus > 0)) {
        return Error::make(ErrorCode::Usage,
                           PaddleJob::tr("--use-gpu=%1 and --%2=%3 disagree; with --use-gpu=true "
                                         "give each trainer 1 or more GPUs, with false none")
                               .arg(arguments.value(u"use-gpu"_s), given)
                               .arg(*gpus),
                           given);
    }
    return *gpus;
}

Result<SeedSubmission> PaddleJob::read(const ParsedArguments &arguments, const QString &workDir)
{
    SeedSubmission submission;
    JobSpec &spec = submission.spec;
    spec.kind = JobSpec::Kind::OpenPai;

    for (const QString &flag : {u"package-path"_s, u"base-image"_s}) {
        if (!arguments.isSet(flag)) {
            return Error::make(ErrorCode::Usage,
                               flag == u"package-path"_s
                                   ? tr("--package-path=DIR is missing: the folder with the "
                                        "trainer's code")
                                   : tr("--base-image=IMAGE is missing: the image the trainers "
                                        "run in (on workers without a container runtime the "
                                        "tasks run in the worker's sandbox, and the image is "
                                        "only recorded)"),
                               flag);
        }
    }
    Result<QString> package =
        SeedFlags::folder(arguments.value(u"package-path"_s), u"package-path"_s, workDir);
    if (!package)
        return package.error();
    submission.packageFolder = *package;
    spec.jobName = arguments.value(u"job-name"_s, QFileInfo(*package).fileName());
    spec.image = arguments.value(u"base-image"_s);

    QString entryPoint;
    if (arguments.isSet(u"entry-point"_s) == arguments.isSet(u"module"_s)) {
        return Error::make(ErrorCode::Usage,
                           tr("give what the trainers run: either --entry-point=\"python "
                              "train.py\" or --module=MODULE (not both)"),
                           u"entry-point"_s);
    }
    if (arguments.isSet(u"module"_s)) {
        Result<QString> module =
            resolveModule(arguments.value(u"module"_s), *package, submission.notes);
        if (!module)
            return module.error();
        entryPoint = u"python3 -m "_s + *module;
    } else {
        entryPoint = arguments.value(u"entry-point"_s);
    }

    Result<int> trainers = SeedFlags::number(arguments, u"trainers"_s, 1, 1);
    if (!trainers)
        return trainers.error();
    Result<int> pservers = SeedFlags::number(arguments, u"pservers"_s, 0, 0);
    if (!pservers)
        return pservers.error();
    Result<int> gpus = trainerGpus(arguments);
    if (!gpus)
        return gpus.error();

    // CPUs and memory of a role from its two flags.
    const auto resources =
        [&](const QString &cpuFlag, const QString &memFlag, TaskRole &role) -> Status {
        role.cpuNumber = 1;
        role.memoryMB = DefaultMemoryMB;
        if (arguments.isSet(cpuFlag)) {
            bool rounded = false;
            Result<int> cpus =
                ResourceString::cpus(arguments.value(cpuFlag), u"--"_s + cpuFlag, &rounded);
            if (!cpus)
                return cpus.error();
            role.cpuNumber = *cpus;
            if (rounded) {
                submission.notes << tr("--%1=%2 is booked as %3 whole CPU(s); DDL books whole CPUs")
                                        .arg(cpuFlag, arguments.value(cpuFlag))
                                        .arg(*cpus);
            }
        }
        if (arguments.isSet(memFlag)) {
            Result<int> memory =
                ResourceString::memoryMB(arguments.value(memFlag), u"--"_s + memFlag);
            if (!memory)
                return memory.error();
            role.memoryMB = *memory;
        }
        return Ok{};
    };

    QHash<QString, QString> fieldFlags{
        {u"jobName"_s, u"job-name"_s}, {u"image"_s, u"base-image"_s}, {u"jobEnvs"_s, u"env"_s}};
    if (*pservers > 0) {
        TaskRole pserver;
        pserver.name = PserverRole;
        pserver.taskNumber = *pservers;
        if (Status read = resources(u"pserver-cpu"_s, u"pserver-mem"_s, pserver); !read)
            return read.error();
        pserver.command = roleCommand(PserverRole,
                                      *trainers,
                                      *pservers,
                                      arguments.value(u"pserver-entry-point"_s, entryPoint));
        const QString prefix = u"taskRoles[%1]."_s.arg(spec.taskRoles.size());
        fieldFlags.insert(prefix + u"cpuNumber"_s, u"pserver-cpu"_s);
        fieldFlags.insert(prefix + u"memoryMB"_s, u"pserver-mem"_s);
        fieldFlags.insert(prefix + u"taskNumber"_s, u"pservers"_s);
        fieldFlags.insert(prefix + u"command"_s, u"pserver-entry-point"_s);
        spec.taskRoles << pserver;
    } else {
        for (const QString &flag : {u"pserver-cpu"_s, u"pserver-mem"_s, u"pserver-entry-point"_s}) {
            if (arguments.isSet(flag)) {
                return Error::make(ErrorCode::Usage,
                                   tr("--%1 is given, but the job has no pservers; add "
                                      "--pservers=N or leave --%1 out")
                                       .arg(flag),
                                   flag);
            }
        }
    }
    TaskRole trainer;
    trainer.name = TrainerRole;
    trainer.taskNumber = *trainers;
    trainer.gpuNumber = *gpus;
    if (Status read = resources(u"trainer-cpu"_s, u"trainer-mem"_s, trainer); !read)
        return read.error();
    trainer.command = roleCommand(TrainerRole, *trainers, *pservers, entryPoint);
    const QString prefix = u"taskRoles[%1]."_s.arg(spec.taskRoles.size());
    fieldFlags.insert(prefix + u"cpuNumber"_s, u"trainer-cpu"_s);
    fieldFlags.insert(prefix + u"memoryMB"_s, u"trainer-mem"_s);
    fieldFlags.insert(prefix + u"gpuNumber"_s, u"trainer-gpu"_s);
    fieldFlags.insert(prefix + u"taskNumber"_s, u"trainers"_s);
    fieldFlags.insert(prefix + u"command"_s, u"entry-point"_s);
    spec.taskRoles << trainer;

    for (const QString &entry : arguments.values(u"env"_s)) {
        if (Status added = SeedFlags::environment(entry, u"env"_s, spec.jobEnvs); !added)
            return added.error();
    }
    if (arguments.isSet(u"input"_s)) {
        spec.dataDir = arguments.value(u"input"_s);
        if (Status data = SeedFlags::data(spec.dataDir, u"input"_s, workDir, submission); !data)
            return data.error();
    }
    if (arguments.isSet(u"output"_s)) {
        spec.outputDir = arguments.value(u"output"_s);
        submission.notes << tr("--output=%1: what the tasks write to $PAI_OUTPUT_DIR becomes the "
                               "job's artifacts on the server; fetch them with ddlcli download "
                               "--job_uuid=%2 --dest=%1")
                                .arg(spec.outputDir, spec.jobName);
    }
    if (Status queue = SeedFlags::readQueueOptions(arguments, submission); !queue)
        return queue.error();

    if (const QList<SpecError> errors = JobSpecValidator::validate(spec); !errors.isEmpty())
        return SeedFlags::specErrors(errors, fieldFlags);
    return submission;
}

} // namespace ddl::cli
