#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli ledger: what the signed-in user's workers gave (the contribution ledger,
// docs/owners.md), one line per worker and their total.
class LedgerCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(LedgerCommand)
public:
    QString name() const override { return QStringLiteral("ledger"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {outputOption()}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
