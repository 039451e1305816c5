#include "versioncommand.h"

#include "clicontext.h"
#include "console.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString VersionCommand::summary() const
{
    return tr("print the versions of ddlcli and of the server");
}

Status VersionCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    const QString client = QStringLiteral(DDL_VERSION);

    // Without any server configured the client's version is still an answer.
    if (Result<QUrl> url = context.serverUrl(); !url && url.error().is(ErrorCode::NoServer)) {
        if (*format == OutputFormat::Json)
            context.console().print(Output::jsonLine({{"client"_L1, client}}));
        else
            context.console().print(u"client: "_s + client + u'\n');
        return Ok{};
    }

    Result<ApiResponse> answer = context.send([](ApiClient &api) { return api.version(); });
    if (*format == OutputFormat::Json) {
        if (!answer)
            return answer.error();
        const QJsonObject server = answer->json();
        context.console().print(Output::jsonLine({{"client"_L1, client},
                                                  {"server"_L1, server.value("server"_L1)},
                                                  {"api"_L1, server.value("api"_L1)},
                                                  {"url"_L1, *context.serverKey()}}));
        return Ok{};
    }
    context.console().print(u"client: "_s + client + u'\n');
    if (!answer)
        return answer.error();
    const QJsonObject server = answer->json();
    context.console().print(u"server: "_s + server.value("server"_L1).toString() + u" (api "_s +
                            QString::number(server.value("api"_L1).toInteger()) + u", "_s +
                            *context.serverKey() + u")\n"_s);
    return Ok{};
}

} // namespace ddl::cli
