#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli download --job_uuid=UUID --dest=DIR: the job's artifacts, each by byte ranges into
// DIR/<path>, resumed from a .part file and verified by its SHA-256.
class DownloadCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(DownloadCommand)
public:
    QString name() const override { return QStringLiteral("download"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
