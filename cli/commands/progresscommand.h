#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli progress --job_uuid=UUID: the job's state, its tasks and the end of their logs.
class ProgressCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(ProgressCommand)
public:
    static constexpr int TailLines = 10;

    QString name() const override { return QStringLiteral("progress"); }
    QString summary() const override;
    QList<OptionSpec> options() const override
    {
        return {jobUuidOption(), seedTaskConfigOption(), outputOption()};
    }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
