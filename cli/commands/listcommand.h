#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli list [--state S] [--limit N]: the user's jobs, newest first.
class ListCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(ListCommand)
public:
    QString name() const override { return QStringLiteral("list"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
