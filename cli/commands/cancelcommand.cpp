#include "cancelcommand.h"

#include "clicontext.h"
#include "console.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString CancelCommand::summary() const
{
    return tr("stop a waiting or running job");
}

Status CancelCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<QString> uuid = jobUuid(arguments);
    if (!uuid)
        return uuid.error();
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.cancelJob(*uuid); });
    if (!answer) {
        if (answer.error().is(ErrorCode::Conflict) && answer.error().message.isEmpty()) {
            return Error::make(
                ErrorCode::Conflict,
                tr("job %1 has already ended; there is nothing to cancel").arg(*uuid),
                u"job_uuid"_s);
        }
        return answer.error();
    }
    const QJsonObject job = answer->json();
    if (*format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(job));
        return Ok{};
    }
    context.console().print(u"job_uuid: "_s + *uuid + u'\n' + Output::jobStatus(job));
    return Ok{};
}

} // namespace ddl::cli
