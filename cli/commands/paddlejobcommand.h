#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli job submit|list|status|logs|kill|delete (`paddle job ...`): the PaddlePaddle client's
// job commands. submit reads the seed's flags (seed/paddlejob.h); the others address a job by
// its name (or uuid) and do what ddlcli list, progress, logs and cancel do.
class PaddleJobCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(PaddleJobCommand)
public:
    QString name() const override { return QStringLiteral("job"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    int maxPositional() const override { return 2; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
