#pragma once

#include "argumentparser.h"
#include "configstore.h"

#include <QCoreApplication>
#include <QStringList>

#include <memory>
#include <vector>

namespace ddl::cli {

class Command;
class Console;

// ddlcli as a library: finds the command in the arguments, parses its options, runs it against
// a CliContext and turns any error into "ddlcli: error: <message>" and an exit code.
class CliApplication
{
    Q_DECLARE_TR_FUNCTIONS(CliApplication)
public:
    enum ExitCode { Success = 0, Failure = 1, UsageError = 2 };

    explicit CliApplication(Console &console,
                            const QString &configDirectory = ConfigStore::defaultDirectory(),
                            const QString &programName = QStringLiteral("ddlcli"));
    ~CliApplication();

    // arguments: without the program name.
    int run(const QStringList &arguments);

    // --server, --ca-cert, --trust-fingerprint and --help: accepted by every command.
    static QList<OptionSpec> globalOptions();
    QString helpText() const;
    QString commandHelp(const Command &command) const;
    const Command *command(const QString &name) const;

    // The program ddlcli runs as, from the name it was started by: "paddle" and "elasticdl"
    // (links to ddlcli) take the seeds' words; anything else is "ddlcli".
    static QString programFor(const QString &argv0);

    // Where `paddle` reads $HOME/.paddle/config (tests point it elsewhere).
    void setPaddleConfigPath(const QString &path) { m_paddleConfigPath = path; }

private:
    int fail(const Error &error);

    Console &m_console;
    QString m_configDirectory;
    QString m_programName;
    QString m_paddleConfigPath;
    std::vector<std::unique_ptr<Command>> m_commands;
};

// What main() calls: sets up the Qt application and the process's console, runs ddlcli.
int runMain(int argc, char **argv);

} // namespace ddl::cli
