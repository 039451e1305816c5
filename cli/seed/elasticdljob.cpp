#include "elasticdljob.h"

#include "resourcestring.h"

#include "jobspec/jobspecvalidator.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static const QString PsRole = u"ps"_s;
static const QString WorkerRole = u"worker"_s;

QString ElasticDlJob::modeName(Mode mode)
{
    switch (mode) {
    case Mode::Train:
        return u"train"_s;
    case Mode::Predict:
        return u"predict"_s;
    case Mode::Evaluate:
        return u"evaluate"_s;
    }
    return {};
}

QStringList ElasticDlJob::passedOnOptions()
{
    return {u"model_params"_s,
            u"dataset_fn"_s,
            u"loss"_s,
            u"optimizer"_s,
            u"eval_metrics_fn"_s,
            u"callbacks"_s,
            u"custom_data_reader"_s,
            u"data_reader_params"_s,
            u"learning_rate_scheduler"_s,
            u"prediction_outputs_processor"_s,
            u"num_minibatches_per_task"_s,
            u"evaluation_steps"_s,
            u"checkpoint_steps"_s,
            u"checkpoint_dir"_s,
            u"keep_checkpoint_max"_s,
            u"checkpoint_dir_for_init"_s,
            u"grads_to_wait"_s,
            u"use_async"_s,
            u"lr_staleness_modulation"_s,
            u"log_loss_steps"_s,
            u"tensorboard_log_dir"_s};
}

QList<OptionSpec> ElasticDlJob::options(Mode mode)
{
    QList<OptionSpec> options{
        OptionSpec::make(u"model_zoo"_s,
                         u"DIR"_s,
                         tr("the folder with the model code; sent as it is on disk (.git left "
                            "out)")),
        OptionSpec::make(u"model_def"_s,
                         u"MODULE.FUNCTION"_s,
                         tr("the function each task calls with (dataset_dir, model_output_dir), "
                            "e.g. mnist.mnist_functional_api.train")),
        OptionSpec::make(u"image_name"_s, u"IMAGE"_s, tr("the image the tasks run in")),
        OptionSpec::make(u"image"_s, u"IMAGE"_s, tr("the same as --image_name")),
        OptionSpec::make(
            u"job_name"_s, u"NAME"_s, tr("the job's name (default: the model zoo folder's name)")),
        OptionSpec::make(u"num_workers"_s, u"N"_s, tr("worker tasks (default 1)")),
        OptionSpec::make(u"num_ps_pods"_s,
                         u"N"_s,
                         tr("parameter server tasks of ParameterServerStrategy (default 1)")),
        OptionSpec::make(u"distribution_strategy"_s,
                         u"STRATEGY"_s,
                         tr("ParameterServerStrategy (default), AllreduceStrategy or Local")),
        OptionSpec::make(u"num_epochs"_s, u"N"_s, tr("passed on as ELASTICDL_NUM_EPOCHS")),
        OptionSpec::make(u"minibatch_size"_s, u"N"_s, tr("passed on as ELASTICDL_MINIBATCH_SIZE")),
        OptionSpec::make(
            u"envs"_s, u"K=V,K2=V2"_s, tr("environment variables of every task, comma-separated")),
        OptionSpec::make(u"output"_s,
                         u"DIR"_s,
                         tr("kept as PAI_OUTPUT_DIR_URI; the outputs become the job's artifacts "
                            "(ddlcli download)"))};
    if (mode == Mode::Train) {
        options << OptionSpec::make(u"training_data"_s,
                                    u"DIR|NAME"_s,
                                    tr("the training data: a folder (uploaded) or the name of "
                                       "your dataset on the server"))
                << OptionSpec::make(u"validation_data"_s,
                                    u"DIR"_s,
                                    tr("a folder inside the training data (its path there is "
                                       "ELASTICDL_VALIDATION_DATA)"));
    } else if (mode == Mode::Evaluate) {
        options << OptionSpec::make(u"validation_data"_s,
                                    u"DIR|NAME"_s,
                                    tr("the data to evaluate on: a folder or a dataset name"));
    } else {
        options << OptionSpec::make(u"prediction_data"_s,
                                    u"DIR|NAME"_s,
                                    tr("the data to predict on: a folder or a dataset name"));
    }
    for (const QString &role : {u"master"_s, u"worker"_s, u"ps"_s}) {
        options << OptionSpec::make(role + u"_resource_request"_s,
                                    u"cpu=1,memory=4096Mi,gpu=0"_s,
                                    tr("what each %1 task books").arg(role))
                << OptionSpec::make(role + u"_resource_limit"_s,
                                    u"cpu=1,memory=4096Mi,gpu=0"_s,
                                    tr("at least the request; books it when no request is given"));
    }
    for (const QString &name : passedOnOptions()) {
        options << OptionSpec::make(
            name, u"VALUE"_s, tr("passed on to the tasks as ELASTICDL_%1").arg(name.toUpper()));
    }
    // Kubernetes settings that ElasticDL users pass out of habit: read, then noted.
    for (const QString &name : {u"image_pull_policy"_s,
                                u"restart_policy"_s,
                                u"volume"_s,
                                u"namespace"_s,
                                u"log_level"_s}) {
        options << OptionSpec::make(name, u"VALUE"_s, tr("accepted, without effect here"));
    }
    return options + SeedFlags::queueOptions() + QList<OptionSpec>{SeedFlags::formatOption()};
}

Status ElasticDlJob::checkModelDef(const QString &modelDef, const QString &modelZoo)
{
    static const QRegularExpression dotted(
        u"^([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)\\.([A-Za-z_][A-Za-z0-9_]*)$"_s);
    const QRegularExpressionMatch match = dotted.match(modelDef);
    if (!match.hasMatch()) {
        return Error::make(ErrorCode::Usage,
                           tr("--model_def=%1 is not valid: expected MODULE.FUNCTION, e.g. "
                              "mnist.mnist_functional_api.train (the module inside --model_zoo, "
                              "then the function DDL calls)")
                               .arg(modelDef),
                           u"model_def"_s);
    }
    const QString module = match.captured(1);
    const QString function = match.captured(2);
    const QString base = QDir(modelZoo).filePath(QString(module).replace(u'.', u'/'));
    QString file = base + u".py"_s;
    if (!QFileInfo(file).isFile())
        file = base + u"/__init__.py"_s;
    QFile source(file);
    if (!source.open(QIODevice::ReadOnly)) {
        return Error::make(ErrorCode::NotFound,
                           tr("--model_def=%1: the model zoo %2 has no %3.py; the module of "
                              "--model_def is a path inside --model_zoo")
                               .arg(modelDef, modelZoo, QString(module).replace(u'.', u'/')),
                           u"model_def"_s);
    }
    // By its text, as for main.py: a top-level def, an assignment or an import binds the name.
    const QString text = QString::fromUtf8(source.readAll());
    const QString name = QRegularExpression::escape(function);
    const QRegularExpression bound(
        u"^(def\\s+%1\\s*\\(|%1\\s*=|(from\\s+\\S+\\s+)?import\\s.*\\b%1\\b)"_s.arg(name),
        QRegularExpression::MultilineOption);
    if (!bound.match(text).hasMatch()) {
        return Error::make(ErrorCode::Usage,
                           tr("--model_def=%1: %2 defines no function %3 at its top level; DDL "
                              "calls %3(dataset_dir, model_output_dir)")
                               .arg(modelDef, file, function),
                           u"model_def"_s);
    }
    return Ok{};
}

// ElasticDL's "--envs K=V,K2=V2".
static Status readEnvs(const QString &text, QJsonObject &envs)
{
    for (const QString &entry : text.split(u',')) {
        if (Status added = SeedFlags::environment(entry.trimmed(), u"envs"_s, envs); !added)
            return added;
    }
    return Ok{};
}

// A role's request and limit: the request is booked; a limit alone is booked; a limit below the
// request is an error.
static Result<ResourceRequest> roleResources(const ParsedArguments &arguments, const QString &role)
{
    const QString requestFlag = role + u"_resource_request"_s;
    const QString limitFlag = role + u"_resource_limit"_s;
    ResourceRequest request;
    if (arguments.isSet(requestFlag)) {
        Result<ResourceRequest> parsed =
            ResourceString::parse(arguments.value(requestFlag), u"--"_s + requestFlag);
        if (!parsed)
            return parsed.error();
        request = *parsed;
    }
    if (!arguments.isSet(limitFlag))
        return request;
    Result<ResourceRequest> limit =
        ResourceString::parse(arguments.value(limitFlag), u"--"_s + limitFlag);
    if (!limit)
        return limit.error();
    const auto check = [&](const QString &key,
                           std::optional<int> &asked,
                           const std::optional<int> &most) -> Status {
        const QString unit = key == u"memory"_s ? u"Mi"_s : QString();
        if (!most)
            return Ok{};
        if (asked && *asked > *most) {
            return Error::make(ErrorCode::Usage,
                               ElasticDlJob::tr("--%1 asks for %2=%3, more than --%4 allows (%5)")
                                   .arg(requestFlag,
                                        key,
                                        QString::number(*asked) + unit,
                                        limitFlag,
                                        QString::number(*most) + unit),
                               limitFlag);
        }
        if (!asked)
            asked = most;
        return Ok{};
    };
    if (Status s = check(u"cpu"_s, request.cpus, limit->cpus); !s)
        return s.error();
    if (Status s = check(u"memory"_s, request.memoryMB, limit->memoryMB); !s)
        return s.error();
    if (Status s = check(u"gpu"_s, request.gpus, limit->gpus); !s)
        return s.error();
    request.notes << limit->notes;
    return request;
}

Result<SeedSubmission>
ElasticDlJob::read(Mode mode, const ParsedArguments &arguments, const QString &workDir)
{
    SeedSubmission submission;
    JobSpec &spec = submission.spec;
    spec.kind = JobSpec::Kind::Ddl;

    for (const QString &flag : {u"model_zoo"_s, u"model_def"_s}) {
        if (!arguments.isSet(flag)) {
            return Error::make(ErrorCode::Usage,
                               flag == u"model_zoo"_s
                                   ? tr("--model_zoo=DIR is missing: the folder with the model "
                                        "code")
                                   : tr("--model_def=MODULE.FUNCTION is missing: the function "
                                        "DDL calls in every task"),
                               flag);
        }
    }
    Result<QString> zoo =
        SeedFlags::folder(arguments.value(u"model_zoo"_s), u"model_zoo"_s, workDir);
    if (!zoo)
        return zoo.error();
    submission.packageFolder = *zoo;
    const QString modelDef = arguments.value(u"model_def"_s);
    if (Status checked = checkModelDef(modelDef, *zoo); !checked)
        return checked.error();
    spec.jobEnvs.insert(u"DDL_ENTRY_POINT"_s, modelDef);
    spec.jobName = arguments.value(u"job_name"_s, QFileInfo(*zoo).fileName());

    if (arguments.isSet(u"image_name"_s) && arguments.isSet(u"image"_s) &&
        arguments.value(u"image_name"_s) != arguments.value(u"image"_s)) {
        return Error::make(ErrorCode::Usage,
                           tr("--image_name=%1 and --image=%2 disagree; give one")
                               .arg(arguments.value(u"image_name"_s), arguments.value(u"image"_s)),
                           u"image"_s);
    }
    spec.image = arguments.value(u"image_name"_s, arguments.value(u"image"_s));

    // The data: the job's dataset is the one the mode reads.
    const QString dataFlag = mode == Mode::Train      ? u"training_data"_s
                             : mode == Mode::Evaluate ? u"validation_data"_s
                                                      : u"prediction_data"_s;
    if (!arguments.isSet(dataFlag)) {
        return Error::make(ErrorCode::Usage,
                           tr("--%1=DIR|NAME is missing: elasticdl %2 reads its data from it")
                               .arg(dataFlag, modeName(mode)),
                           dataFlag);
    }
    spec.dataDir = arguments.value(dataFlag);
    if (Status data = SeedFlags::data(spec.dataDir, dataFlag, workDir, submission); !data)
        return data.error();
    QString jobType = mode == Mode::Train      ? u"training_only"_s
                      : mode == Mode::Evaluate ? u"evaluation_only"_s
                                               : u"prediction_only"_s;
    if (mode == Mode::Train && arguments.isSet(u"validation_data"_s)) {
        // A job has one dataset: the validation data must travel inside the training data.
        const QString given = arguments.value(u"validation_data"_s);
        const QFileInfo validation(QDir(workDir), given);
        const QString training = submission.datasetFolder;
        const QString path = validation.canonicalFilePath();
        if (training.isEmpty() || !validation.isDir() ||
            !(path == training || path.startsWith(training + u'/'))) {
            return Error::make(ErrorCode::Usage,
                               tr("--validation_data=%1: a DDL job has one dataset, so the "
                                  "validation data must be a folder inside the --training_data "
                                  "folder (put it in a subfolder there, e.g. validation/)")
                                   .arg(given),
                               u"validation_data"_s);
        }
        const QString relative = QDir(training).relativeFilePath(path);
        spec.jobEnvs.insert(u"ELASTICDL_VALIDATION_DATA"_s, relative.isEmpty() ? u"."_s : relative);
        jobType = u"training_with_evaluation"_s;
    }
    spec.jobEnvs.insert(u"ELASTICDL_JOB_TYPE"_s, jobType);

    for (const QString &flag : {u"num_epochs"_s, u"minibatch_size"_s}) {
        Result<int> value = SeedFlags::number(arguments, flag, 1, 0);
        if (!value)
            return value.error();
        if (*value > 0)
            spec.jobEnvs.insert(u"ELASTICDL_"_s + flag.toUpper(), QString::number(*value));
    }

    for (const QString &name : passedOnOptions()) {
        if (arguments.isSet(name))
            spec.jobEnvs.insert(u"ELASTICDL_"_s + name.toUpper(), arguments.value(name));
    }

    const QString strategy =
        arguments.value(u"distribution_strategy"_s, u"ParameterServerStrategy"_s);
    const QStringList strategies{u"ParameterServerStrategy"_s, u"AllreduceStrategy"_s, u"Local"_s};
    if (!strategies.contains(strategy)) {
        return Error::make(ErrorCode::Usage,
                           tr("--distribution_strategy=%1 is not valid: expected one of %2")
                               .arg(strategy, strategies.join(u", "_s)),
                           u"distribution_strategy"_s);
    }
    spec.jobEnvs.insert(u"ELASTICDL_DISTRIBUTION_STRATEGY"_s, strategy);
    const bool parameterServers = strategy == u"ParameterServerStrategy"_s;
    Result<int> workers = SeedFlags::number(arguments, u"num_workers"_s, 1, 1);
    if (!workers)
        return workers.error();
    Result<int> psPods = SeedFlags::number(
        arguments, u"num_ps_pods"_s, parameterServers ? 1 : 0, parameterServers ? 1 : 0);
    if (!psPods)
        return psPods.error();
    if (!parameterServers) {
        for (const QString &flag :
             {u"num_ps_pods"_s, u"ps_resource_request"_s, u"ps_resource_limit"_s}) {
            if (arguments.isSet(flag) && !(flag == u"num_ps_pods"_s && *psPods == 0)) {
                return Error::make(ErrorCode::Usage,
                                   tr("--%1 is given, but %2 has no parameter servers; use "
                                      "--distribution_strategy=ParameterServerStrategy or leave "
                                      "--%1 out")
                                       .arg(flag, strategy),
                                   flag);
            }
        }
    }
    if (strategy == u"Local"_s && *workers != 1) {
        return Error::make(ErrorCode::Usage,
                           tr("--num_workers=%1 with --distribution_strategy=Local: a local job "
                              "has one worker")
                               .arg(*workers),
                           u"num_workers"_s);
    }

    // The master's resources are checked, then noted: the DDL server does the master's work.
    if (Result<ResourceRequest> master = roleResources(arguments, u"master"_s); !master) {
        return master.error();
    } else if (arguments.isSet(u"master_resource_request"_s) ||
               arguments.isSet(u"master_resource_limit"_s)) {
        submission.notes << tr("--master_resource_request/limit: accepted, but no master task "
                               "runs here: the DDL server schedules the tasks, and every worker "
                               "reads its data from the dataset folder");
    }
    QHash<QString, QString> fieldFlags{
        {u"jobName"_s, u"job_name"_s}, {u"image"_s, u"image_name"_s}, {u"jobEnvs"_s, u"envs"_s}};
    const auto addRole = [&](const QString &name, int count, const QString &countFlag) -> Status {
        Result<ResourceRequest> resources = roleResources(arguments, name);
        if (!resources)
            return resources.error();
        TaskRole role;
        role.name = name;
        role.taskNumber = count;
        role.cpuNumber = resources->cpus.value_or(1);
        role.memoryMB = resources->memoryMB.value_or(DefaultMemoryMB);
        role.gpuNumber = resources->gpus.value_or(0);
        submission.notes << resources->notes;
        const QString prefix = u"taskRoles[%1]."_s.arg(spec.taskRoles.size());
        for (const char *field : {"cpuNumber", "memoryMB", "gpuNumber"})
            fieldFlags.insert(prefix + QLatin1String(field), name + u"_resource_request"_s);
        fieldFlags.insert(prefix + u"taskNumber"_s, countFlag);
        spec.taskRoles << role;
        return Ok{};
    };
    if (parameterServers) {
        if (Status added = addRole(PsRole, *psPods, u"num_ps_pods"_s); !added)
            return added.error();
    }
    if (Status added = addRole(WorkerRole, *workers, u"num_workers"_s); !added)
        return added.error();

    if (arguments.isSet(u"envs"_s)) {
        QJsonObject envs;
        if (Status read = readEnvs(arguments.value(u"envs"_s), envs); !read)
            return read.error();
        for (auto it = envs.begin(); it != envs.end(); ++it) {
            if (spec.jobEnvs.contains(it.key())) {
                return Error::make(
                    ErrorCode::Usage,
                    tr("--envs sets %1, which the other flags set; leave it out").arg(it.key()),
                    u"envs"_s);
            }
            spec.jobEnvs.insert(it.key(), it.value());
        }
    }
    if (arguments.isSet(u"output"_s)) {
        spec.outputDir = arguments.value(u"output"_s);
        submission.notes << tr("--output=%1: what the tasks write to model_output_dir becomes the "
                               "job's artifacts on the server; fetch them with ddlcli download "
                               "--job_uuid=%2 --dest=%1")
                                .arg(spec.outputDir, spec.jobName);
    }
    for (const QString &name : {u"image_pull_policy"_s,
                                u"restart_policy"_s,
                                u"volume"_s,
                                u"namespace"_s,
                                u"log_level"_s}) {
        if (arguments.isSet(name)) {
            submission.notes << tr("--%1: accepted, but has no effect here (a Kubernetes "
                                   "setting; DDL runs tasks on its workers)")
                                    .arg(name);
        }
    }
    if (Status queue = SeedFlags::readQueueOptions(arguments, submission); !queue)
        return queue.error();

    if (const QList<SpecError> errors = JobSpecValidator::validate(spec); !errors.isEmpty())
        return SeedFlags::specErrors(errors, fieldFlags);
    return submission;
}

} // namespace ddl::cli
