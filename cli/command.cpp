#include "command.h"

#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

OptionSpec Command::outputOption()
{
    return {u"output"_s, u"FORMAT"_s, tr("print 'table' (the default) or 'json'"), {}, false};
}

Result<OutputFormat> Command::outputFormat(const ParsedArguments &arguments)
{
    return Output::formatFromName(arguments.value(u"output"_s, u"table"_s));
}

OptionSpec Command::seedTaskConfigOption()
{
    return {u"task_config"_s,
            u"FILE"_s,
            tr("the job's task.yaml, as the seed's command line has it; not needed, the job is "
               "found by --job_uuid"),
            {},
            false};
}

OptionSpec Command::jobUuidOption()
{
    return {u"job_uuid"_s,
            u"UUID"_s,
            tr("the job, as printed by ddlcli submit or list, or its name"),
            {},
            true};
}

Result<QString> Command::jobUuid(const ParsedArguments &arguments)
{
    const QString uuid = arguments.value(u"job_uuid"_s).trimmed();
    // A uuid, or a job name (the server looks up either).
    static const QRegularExpression pattern(u"^[A-Za-z0-9._~-]{1,200}$"_s);
    if (!pattern.match(uuid).hasMatch() || uuid == u"."_s || uuid == u".."_s) {
        return Error::make(ErrorCode::Usage,
                           tr("'%1' is not a job UUID or name; copy it from ddlcli submit or "
                              "ddlcli list")
                               .arg(uuid),
                           u"job_uuid"_s);
    }
    return uuid;
}

Result<qint64>
Command::positiveNumber(const ParsedArguments &arguments, const QString &name, bool allowZero)
{
    bool ok = false;
    const qint64 number = arguments.value(name).toLongLong(&ok);
    if (!ok || number < (allowZero ? 0 : 1)) {
        return Error::make(ErrorCode::Usage,
                           tr("--%1 must be a whole number %2, not '%3'")
                               .arg(name, allowZero ? u">= 0"_s : u"> 0"_s, arguments.value(name)),
                           name);
    }
    return number;
}

} // namespace ddl::cli
