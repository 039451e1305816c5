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
    return tr("list your jobs, newest first, or as --sort orders them");
}

QList<OptionSpec> ListCommand::options() const
{
    return {{u"state"_s,
             u"STATE[,STATE...]"_s,
             tr("only jobs in these states: %1").arg(JobStates.join(u", "_s)),
             {},
             false},
            {u"name"_s, u"TEXT"_s, tr("only jobs whose name contains TEXT (any case)"), {}, false},
            {u"sort"_s,
             u"KEY"_s,
             tr("order by submitted (default), name, state, priority, started or finished"),
             {},
             false},
            {u"order"_s, u"asc|desc"_s, tr("ascending or descending"), {}, false},
            {u"limit"_s, u"N"_s, tr("at most N jobs (default 50)"), {}, false},
            outputOption()};
}

Status ListCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    JobListQuery query;
    const QStringList states =
        arguments.value(u"state"_s).toUpper().split(u',', Qt::SkipEmptyParts);
    for (const QString &state : states) {
        if (!JobStates.contains(state.trimmed())) {
            return Error::make(ErrorCode::Usage,
                               tr("--state takes one or more of %1 (comma-separated), not '%2'")
                                   .arg(JobStates.join(u", "_s), state.trimmed()),
                               u"state"_s);
        }
        query.states << state.trimmed();
    }
    query.name = arguments.value(u"name"_s);
    // The server checks sort and order and names what it takes.
    query.sort = arguments.value(u"sort"_s).toLower();
    query.order = arguments.value(u"order"_s).toLower();
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
        const bool filtered = arguments.isSet(u"state"_s) || arguments.isSet(u"name"_s);
        context.console().print(filtered ? tr("No job matches the filter.\n")
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
