#pragma once

#include "seedsubmission.h"

namespace ddl::cli {

// `paddle job submit` (the PaddlePaddle cloud client's flags) read into one DDL job: an OpenPAI
// job of two task roles, "pserver" (when --pservers > 0, role 0) and "trainer", each running the
// entry point through bash with Paddle's environment (PADDLE_TRAINING_ROLE, PADDLE_TRAINER_ID,
// PADDLE_TRAINERS_NUM, PADDLE_PSERVER_ENDPOINTS from PAI_TASK_ROLE_0_HOST_LIST, ...).
class PaddleJob
{
    Q_DECLARE_TR_FUNCTIONS(PaddleJob)
public:
    static constexpr int DefaultMemoryMB = 2048;

    static QList<OptionSpec> submitOptions();
    // The option names that only `job submit` takes.
    static QStringList submitOnlyOptions();

    // Reads the flags; relative paths start at workDir. Nothing is sent.
    static Result<SeedSubmission> read(const ParsedArguments &arguments, const QString &workDir);

    // The command a role's tasks run: Paddle's environment, then the entry point.
    static QString
    roleCommand(const QString &role, int trainers, int pservers, const QString &entryPoint);
    // The module to run with python3 -m, as found in the package folder (a module named from
    // the folder above it, quick_start.train in quick_start/, is taken relative to the folder).
    static Result<QString>
    resolveModule(const QString &module, const QString &packageFolder, QStringList &notes);
};

} // namespace ddl::cli
