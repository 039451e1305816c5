#pragma once

#include "seedsubmission.h"

namespace ddl::cli {

// `elasticdl train|predict|evaluate` (the ElasticDL client's flags) read into one DDL job: a DDL
// job whose runner calls --model_def's module.function(dataset_dir, model_output_dir) (job env
// DDL_ENTRY_POINT) in every task, with a "worker" role and, for ParameterServerStrategy, a "ps"
// role before it; TF_CONFIG names both. The --model_zoo folder is the code, sent as it is.
class ElasticDlJob
{
    Q_DECLARE_TR_FUNCTIONS(ElasticDlJob)
public:
    enum class Mode { Train, Predict, Evaluate };

    static constexpr int DefaultMemoryMB = 2048;

    static QString modeName(Mode mode);
    // ElasticDL's model and training parameters that DDL passes on to the tasks unread, each as
    // ELASTICDL_<NAME> (--model_params → ELASTICDL_MODEL_PARAMS).
    static QStringList passedOnOptions();
    static QList<OptionSpec> options(Mode mode);
    // Reads the flags; relative paths start at workDir. Nothing is sent.
    static Result<SeedSubmission>
    read(Mode mode, const ParsedArguments &arguments, const QString &workDir);

    // "module.function" checked against the model zoo: the module's file exists and binds the
    // function at its top level.
    static Status checkModelDef(const QString &modelDef, const QString &modelZoo);
};

} // namespace ddl::cli
