#include "cliapplication.h"

#include "clicontext.h"
#include "commands/authcommands.h"
#include "commands/cancelcommand.h"
#include "commands/datasetcommand.h"
#include "commands/ledgercommand.h"
#include "commands/downloadcommand.h"
#include "commands/elasticdlcommand.h"
#include "commands/imagecommand.h"
#include "commands/listcommand.h"
#include "commands/logscommand.h"
#include "commands/paddlejobcommand.h"
#include "commands/progresscommand.h"
#include "commands/submitcommand.h"
#include "commands/topcommand.h"
#include "commands/versioncommand.h"
#include "commands/zoocommand.h"
#include "console.h"
#include "seed/paddleconfig.h"

#include <QFileInfo>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

CliApplication::CliApplication(Console &console,
                               const QString &configDirectory,
                               const QString &programName)
    : m_console(console)
    , m_configDirectory(configDirectory)
    , m_programName(programName)
    , m_paddleConfigPath(PaddleConfig::defaultPath())
{
    m_commands.push_back(std::make_unique<RegisterCommand>());
    m_commands.push_back(std::make_unique<LoginCommand>());
    m_commands.push_back(std::make_unique<SubmitCommand>());
    m_commands.push_back(std::make_unique<ListCommand>());
    m_commands.push_back(std::make_unique<ProgressCommand>());
    m_commands.push_back(std::make_unique<LogsCommand>());
    m_commands.push_back(std::make_unique<TopCommand>());
    m_commands.push_back(std::make_unique<CancelCommand>());
    m_commands.push_back(std::make_unique<DownloadCommand>());
    m_commands.push_back(std::make_unique<DatasetCommand>());
    m_commands.push_back(std::make_unique<ImageCommand>());
    m_commands.push_back(std::make_unique<ZooCommand>());
    m_commands.push_back(std::make_unique<LedgerCommand>());
    m_commands.push_back(std::make_unique<VersionCommand>());
    // The seeds' command lines (docs/cli.md).
    m_commands.push_back(std::make_unique<PaddleJobCommand>());
    m_commands.push_back(std::make_unique<ElasticDlCommand>(ElasticDlJob::Mode::Train));
    m_commands.push_back(std::make_unique<ElasticDlCommand>(ElasticDlJob::Mode::Predict));
    m_commands.push_back(std::make_unique<ElasticDlCommand>(ElasticDlJob::Mode::Evaluate));
}

QString CliApplication::programFor(const QString &argv0)
{
    const QString name = QFileInfo(argv0).fileName();
    if (name == u"paddle"_s || name == u"elasticdl"_s)
        return name;
    return u"ddlcli"_s;
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
    QString usage = m_programName + u' ' + command.name();
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
    m_console.printError(m_programName + u": error: "_s + message + u'\n');
    return error.is(ErrorCode::Usage) ? UsageError : Failure;
}

int CliApplication::run(const QStringList &arguments)
{
    const qsizetype index = ArgumentParser::findCommand(arguments, globalOptions());
    QString name = index >= 0 ? arguments.at(index) : QString();
    QStringList rest = arguments;
    if (index >= 0)
        rest.removeAt(index);
    const bool paddle = m_programName == u"paddle"_s;
    // The Paddle client's older words: paddle train|list|status|cancel are its job actions.
    static const QHash<QString, QString> paddleWords{{u"train"_s, u"submit"_s},
                                                     {u"list"_s, u"list"_s},
                                                     {u"status"_s, u"status"_s},
                                                     {u"cancel"_s, u"kill"_s}};
    if (paddle && paddleWords.contains(name)) {
        rest.prepend(paddleWords.value(name));
        name = u"job"_s;
    }

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
        error.message += u"; run "_s + m_programName + u' ' + name + u" --help"_s;
        return fail(error);
    }
    if (parsed->positional().size() > chosen->maxPositional()) {
        return fail(Error::make(
            ErrorCode::Usage,
            tr("unexpected argument '%1'; run %2 %3 --help")
                .arg(parsed->positional().value(chosen->maxPositional()), m_programName, name)));
    }

    GlobalOptions options;
    options.server = parsed->value(u"server"_s);
    options.caCertificate = parsed->value(u"ca-cert"_s);
    options.trustFingerprint = parsed->value(u"trust-fingerprint"_s);
    // The Paddle commands read $HOME/.paddle/config: its server after --server and DDL_SERVER,
    // its username as the account they must run as.
    std::optional<PaddleConfig> paddleConfig;
    if (paddle || name == u"job"_s) {
        Result<std::optional<PaddleConfig>> loaded = PaddleConfig::load(m_paddleConfigPath);
        if (!loaded)
            return fail(loaded.error());
        paddleConfig = *loaded;
    }
    if (paddleConfig) {
        if (options.server.isEmpty() && qEnvironmentVariableIsEmpty("DDL_SERVER"))
            options.server = paddleConfig->server;
        if (name == u"job"_s && parsed->positional().value(0) == u"submit"_s) {
            for (const QString &note : paddleConfig->notes)
                m_console.printError(tr("note: %1").arg(note) + u'\n');
        }
    }
    CliContext context(m_console, options, m_configDirectory);
    if (Status loaded = context.load(); !loaded)
        return fail(loaded.error());
    if (paddleConfig && !paddleConfig->username.isEmpty() && name != u"login"_s &&
        name != u"register"_s)
        context.setExpectedUser(paddleConfig->username, paddleConfig->path);
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
    // `paddle` and `elasticdl` are links to ddlcli (docs/cli.md).
    CliApplication cli(*console,
                       ConfigStore::defaultDirectory(),
                       CliApplication::programFor(QString::fromLocal8Bit(argv[0])));
    return cli.run(QCoreApplication::arguments().mid(1));
}

} // namespace ddl::cli
