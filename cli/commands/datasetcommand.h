#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli dataset upload DIR --name NAME | list | download NAME --dest DIR | rm NAME:
// the user's named datasets, each a manifest of deduplicated blobs on the server.
class DatasetCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(DatasetCommand)
public:
    QString name() const override { return QStringLiteral("dataset"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    int maxPositional() const override { return 2; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;

private:
    Status upload(CliContext &context, const QString &folder, const ParsedArguments &arguments);
    Status list(CliContext &context, OutputFormat format);
    Status download(CliContext &context, const QString &name, const ParsedArguments &arguments);
    Status remove(CliContext &context, const QString &name, OutputFormat format);
};

} // namespace ddl::cli
