#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli version: the client's version, and the server's when one is configured.
class VersionCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(VersionCommand)
public:
    QString name() const override { return QStringLiteral("version"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {outputOption()}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
