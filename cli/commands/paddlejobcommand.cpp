#include "paddlejobcommand.h"

#include "cancelcommand.h"
#include "clicontext.h"
#include "listcommand.h"
#include "logscommand.h"
#include "progresscommand.h"
#include "seed/paddlejob.h"
#include "seed/seedsubmission.h"
#include "seed/seedsubmitter.h"

#include <QDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString PaddleJobCommand::summary() const
{
    return tr("the Paddle client's jobs: job submit --package-path=DIR --entry-point=CMD "
              "--base-image=IMAGE ... | list | status NAME | logs NAME | kill NAME | delete NAME");
}

QList<OptionSpec> PaddleJobCommand::options() const
{
    QList<OptionSpec> options = PaddleJob::submitOptions();
    OptionSpec follow = OptionSpec::make(u"follow"_s, {}, tr("logs: keep printing new output"));
    follow.shortName = u'f';
    options << follow
            << OptionSpec::make(u"stream"_s,
                                u"all|stdout|stderr"_s,
                                tr("logs: only the tasks' stdout or stderr"))
            << SeedFlags::formatOption();
    return options;
}

static Error usage(const QString &message)
{
    return Error::make(ErrorCode::Usage, message + PaddleJobCommand::tr("; run ddlcli job --help"));
}

Status PaddleJobCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    const QString format = arguments.value(u"format"_s, u"table"_s);
    Result<OutputFormat> outputFormat = Output::formatFromName(format);
    if (!outputFormat)
        return outputFormat.error();
    const QStringList words = arguments.positional();
    const QString action = words.value(0);
    if (action == u"submit"_s) {
        if (words.size() != 1) {
            // "--use-gpu true": the flag's value goes after '=', so the word stands alone.
            return usage(tr("unexpected argument '%1': job submit takes no NAME (give it with "
                            "--job-name), and --use-gpu takes its value after '=' "
                            "(--use-gpu=true)")
                             .arg(words.at(1)));
        }
        Result<SeedSubmission> submission = PaddleJob::read(arguments, QDir::currentPath());
        if (!submission)
            return submission.error();
        return SeedSubmitter::submit(context, *submission, *outputFormat);
    }

    const QStringList actions{u"list"_s, u"status"_s, u"logs"_s, u"kill"_s, u"delete"_s};
    if (!actions.contains(action)) {
        return usage(action.isEmpty()
                         ? tr("say what to do: submit, list, status NAME, logs NAME, kill NAME "
                              "or delete NAME")
                         : tr("unknown job action '%1'; the actions are submit, %2")
                               .arg(action, actions.join(u", "_s)));
    }
    for (const QString &option : PaddleJob::submitOnlyOptions()) {
        if (arguments.isSet(option))
            return usage(tr("--%1 belongs to job submit, not to job %2").arg(option, action));
    }
    if (action != u"logs"_s) {
        for (const QString &option : {u"follow"_s, u"stream"_s}) {
            if (arguments.isSet(option))
                return usage(tr("--%1 belongs to job logs, not to job %2").arg(option, action));
        }
    }

    // The other commands do the work, given the job's name as --job_uuid (it takes either).
    ParsedArguments forwarded;
    forwarded.setValue(u"output"_s, format);
    if (action == u"list"_s) {
        if (words.size() != 1)
            return usage(tr("job list takes no NAME"));
        return ListCommand().run(context, forwarded);
    }
    if (words.size() != 2)
        return usage(tr("job %1 needs the job's NAME (or uuid)").arg(action));
    forwarded.setValue(u"job_uuid"_s, words.at(1));
    if (action == u"status"_s)
        return ProgressCommand().run(context, forwarded);
    if (action == u"logs"_s) {
        for (const QString &option : {u"follow"_s, u"stream"_s}) {
            if (arguments.isSet(option))
                forwarded.setValue(option, arguments.value(option));
        }
        return LogsCommand().run(context, forwarded);
    }
    // kill and delete: the seed's DELETE /v1/jobs/<name> stops the job; DDL keeps its record,
    // logs and artifacts (ddlcli list still shows it, as STOPPED).
    return CancelCommand().run(context, forwarded);
}

} // namespace ddl::cli
