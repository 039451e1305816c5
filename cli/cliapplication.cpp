#include "cliapplication.h"

#include "clicontext.h"
#include "commands/authcommands.h"
#include "commands/cancelcommand.h"
#include "commands/datasetcommand.h"
#include "commands/downloadcommand.h"
#include "commands/imagecommand.h"
#include "commands/listcommand.h"
#include "commands/logscommand.h"
#include "commands/progresscommand.h"
#include "commands/submitcommand.h"
#include "commands/versioncommand.h"
#include "console.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

CliApplication::CliApplication(Console &console, const QString &configDirectory)
    : m_console(console)
    , m_configDirectory(configDirectory)
{
    m_commands.push_back(std::make_unique<RegisterCommand>());
    m_commands.push_back(std::make_unique<LoginCommand>());
    m_commands.push_back(std::make_unique<SubmitCommand>());
    m_commands.push_back(std::make_unique<ListCommand>());
    m_commands.push_back(std::make_unique<ProgressCommand>());
    m_commands.push_back(std::make_unique<LogsCommand>());
    m_commands.push_back(std::make_unique<CancelCommand>());
    m_commands.push_back(std::make_unique<DownloadCommand>());
    m_commands.push_back(std::make_unique<DatasetCommand>());
    m_commands.push_back(std::make_unique<ImageCommand>());
    m_commands.push_back(std::make_unique<VersionCommand>());
}

CliApplication::~CliApplication() = default;

QList<OptionSpec> CliApplication::globalOptions()
{
    return {{u"server"_s,
             u"URL"_s,
             tr("the DDL server (else DDL_SERVER, else the one you last logged in to)"),
             {},
             false},
            {u"ca-cert"_s,
             u"FILE"_s,
             tr("trust the server by this CA or certificate file (else DDL_CA_CERT)"),
             {},
             false},
            {u"trust-fingerprint"_s,
             u"SHA256:.."_s,
             tr("trust and pin the server's certificate if it has this fingerprint"),
             {},
             false},
            {u"help"_s, {}, tr("show help"), u'h', false}};
}

const Command *CliApplication::command(const QString &name) const
{
    for (const auto &command : m_commands) {
        if (command->name() == name)
            return command.get();
    }
    return nullptr;
}

QString CliApplication::helpText() const
{
    QString text = tr("Usage: ddlcli <command> [options]\n\n"
                      "Trains deep-learning models on DDL: submits the code at HEAD of a git "
                      "repository with its dataset,\nfollows the job and downloads the trained "
                      "model.\n\nCommands:\n");
    qsizetype width = 0;
    for (const auto &command : m_commands)
        width = std::max(width, command->name().size());
    for (const auto &command : m_commands)
        text += u"  "_s + command->name().leftJustified(width + 2) + command->summary() + u'\n';
    text += u'\n' + tr("Options of every command:") + u'\n' +
            ArgumentParser::describe(globalOptions()) + u'\n' +
            tr("Options take their value as --name=value or --name value. Run ddlcli <command> "
               "--help for the options of a command.") +
            u'\n';
    return text;
}

QString CliApplication::commandHelp(const Command &command) const
{
    QString usage = u"ddlcli "_s + command.name();
    for (const OptionSpec &option : command.options()) {
        const QString name = ArgumentParser::displayName(option);
        usage += u' ' + (option.required ? name : u'[' + name + u']');
    }
    QString text = tr("Usage: %1").arg(usage) + u"\n\n" + command.summary() + u"\n\n";
    if (!command.options().isEmpty())
        text += tr("Options:") + u'\n' + ArgumentParser::describe(command.options()) + u'\n';
    text += tr("Options of every command:") + u'\n' + ArgumentParser::describe(globalOptions());
    return text;
}

int CliApplication::fail(const Error &error)
{
    QString message = error.message.trimmed();
    if (message.isEmpty()) {
        message = error.code.isEmpty()
                      ? tr("the command failed without saying why; run it again, and report it if "
                           "it fails the same way")
                      : tr("the command failed (%1)").arg(error.code);
    }
    m_console.printError(u"ddlcli: error: "_s + message + u'\n');
    return error.is(ErrorCode::Usage) ? UsageError : Failure;
}

int CliApplication::run(const QStringList &arguments)
{
    const qsizetype index = ArgumentParser::findCommand(arguments, globalOptions());
    QString name = index >= 0 ? arguments.at(index) : QString();
    QStringList rest = arguments;
    if (index >= 0)
        rest.removeAt(index);

    if (name == u"help"_s) {
        // "ddlcli help [command]"
        const Result<ParsedArguments> parsed = ArgumentParser::parse(rest, globalOptions());
        const QString topic =
            parsed && !parsed->positional().isEmpty() ? parsed->positional().first() : QString();
        if (topic.isEmpty()) {
            m_console.print(helpText());
            return Success;
        }
        name = topic;
        rest = {u"--help"_s};
    }

    if (name.isEmpty()) {
        const Result<ParsedArguments> parsed = ArgumentParser::parse(rest, globalOptions());
        if (parsed && parsed->isSet(u"help"_s)) {
            m_console.print(helpText());
            return Success;
        }
        if (!parsed)
            return fail(parsed.error());
        return fail(Error::make(ErrorCode::Usage,
                                tr("no command given; run ddlcli --help for the list of "
                                   "commands")));
    }

    Command *chosen = nullptr;
    for (const auto &command : m_commands) {
        if (command->name() == name)
            chosen = command.get();
    }
    if (!chosen) {
        return fail(Error::make(ErrorCode::Usage,
                                tr("unknown command '%1'; run ddlcli --help for the list of "
                                   "commands")
                                    .arg(name)));
    }

    const QList<OptionSpec> specs = globalOptions() + chosen->options();
    // --help wins over anything else on the line, even a missing required option.
    if (rest.contains(u"--help"_s) || rest.contains(u"-h"_s)) {
        m_console.print(commandHelp(*chosen));
        return Success;
    }
    const Result<ParsedArguments> parsed = ArgumentParser::parse(rest, specs);
    if (!parsed) {
        Error error = parsed.error();
        error.message += u"; run ddlcli "_s + name + u" --help"_s;
        return fail(error);
    }
    if (parsed->positional().size() > chosen->maxPositional()) {
        return fail(
            Error::make(ErrorCode::Usage,
                        tr("unexpected argument '%1'; run ddlcli %2 --help")
                            .arg(parsed->positional().value(chosen->maxPositional()), name)));
    }

    GlobalOptions options;
    options.server = parsed->value(u"server"_s);
    options.caCertificate = parsed->value(u"ca-cert"_s);
    options.trustFingerprint = parsed->value(u"trust-fingerprint"_s);
    CliContext context(m_console, options, m_configDirectory);
    if (Status loaded = context.load(); !loaded)
        return fail(loaded.error());
    if (Status status = chosen->run(context, *parsed); !status)
        return fail(status.error());
    return Success;
}

int runMain(int argc, char **argv)
{
    QCoreApplication application(argc, argv);
    QCoreApplication::setApplicationName(u"ddlcli"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(DDL_VERSION));
    std::unique_ptr<Console> console = Console::standard();
    CliApplication cli(*console);
    return cli.run(QCoreApplication::arguments().mid(1));
}

} // namespace ddl::cli
