#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli cancel --job_uuid=UUID: stops a waiting or running job.
class CancelCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(CancelCommand)
public:
    QString name() const override { return QStringLiteral("cancel"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {jobUuidOption(), outputOption()}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
