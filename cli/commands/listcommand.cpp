#include "listcommand.h"

#include "clicontext.h"
#include "console.h"
#include "wire/jobstate.h"

#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static const QStringList JobStates = allStateNames();

QString ListCommand::summary() const
{
    return tr("list your jobs, newest first");
}

QList<OptionSpec> ListCommand::options() const
{
    return {{u"state"_s,
             u"STATE"_s,
             tr("only jobs in this state: %1").arg(JobStates.join(u", "_s)),
             {},
             false},
            {u"limit"_s, u"N"_s, tr("at most N jobs (default 50)"), {}, false},
            outputOption()};
}

Status ListCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    JobListQuery query;
    if (arguments.isSet(u"state"_s)) {
        const QString state = arguments.value(u"state"_s).toUpper();
        if (!JobStates.contains(state)) {
            return Error::make(ErrorCode::Usage,
                               tr("--state must be one of %1, not '%2'")
                                   .arg(JobStates.join(u", "_s), arguments.value(u"state"_s)),
                               u"state"_s);
        }
        query.state = state;
    }
    if (arguments.isSet(u"limit"_s)) {
        Result<qint64> number = positiveNumber(arguments, u"limit"_s);
        if (!number)
            return number.error();
        query.limit = int(std::min<qint64>(*number, std::numeric_limits<int>::max()));
    }

    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.listJobs(query); });
    if (!answer)
        return answer.error();
    const QJsonObject page = answer->json();
    if (*format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(page));
        return Ok{};
    }
    const QJsonArray jobs = page.value("jobs"_L1).toArray();
    if (jobs.isEmpty()) {
        context.console().print(arguments.isSet(u"state"_s) ? tr("No jobs in that state.\n")
                                                            : tr("No jobs yet.\n"));
        return Ok{};
    }
    context.console().print(Output::jobTable(jobs));
    const qint64 total = page.value("total"_L1).toInteger(jobs.size());
    if (total > jobs.size()) {
        context.console().print(
            tr("(%1 of %2 jobs; pass --limit to see more)\n").arg(jobs.size()).arg(total));
    }
    return Ok{};
}

} // namespace ddl::cli
