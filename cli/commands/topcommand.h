#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli top --job_uuid=UUID: each task's latest utilisation sample (CPU, memory, GPUs) as its
// worker reported it; --output json prints the server's whole answer (every sample).
class TopCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(TopCommand)
public:
    QString name() const override { return QStringLiteral("top"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {jobUuidOption(), outputOption()}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
