#pragma once

#include "argumentparser.h"
#include "core/result.h"
#include "outputformat.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace ddl::cli {

class CliContext;

// One ddlcli command: its name, its options, and what it does with them.
class Command
{
    Q_DECLARE_TR_FUNCTIONS(Command)
public:
    virtual ~Command() = default;

    virtual QString name() const = 0;
    // One line for the command list of --help.
    virtual QString summary() const = 0;
    virtual QList<OptionSpec> options() const = 0;
    // How many words may follow the command besides options ("dataset upload DIR").
    virtual int maxPositional() const { return 0; }
    // Prints the command's result on the context's console; an error is printed by the caller.
    virtual Status run(CliContext &context, const ParsedArguments &arguments) = 0;

protected:
    // "--output table|json", for commands that read.
    static OptionSpec outputOption();
    static Result<OutputFormat> outputFormat(const ParsedArguments &arguments);
    // "--task_config FILE" on commands that name a job by its uuid: the DDL seed writes it on
    // progress and download, so it is accepted there; the uuid alone names the job.
    static OptionSpec seedTaskConfigOption();
    // "--job_uuid UUID", required.
    static OptionSpec jobUuidOption();
    // The job UUID, checked to be something that can go into a URL path.
    static Result<QString> jobUuid(const ParsedArguments &arguments);
    // A whole number > 0 (or >= 0 when zero is allowed) from an option.
    static Result<qint64>
    positiveNumber(const ParsedArguments &arguments, const QString &name, bool allowZero = false);
};

} // namespace ddl::cli
