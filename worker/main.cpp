// ddl-worker: parses its arguments and starts the worker agent; everything else lives in
// ddl_worker_core.
#include "agent/configreloader.h"
#include "agent/workeragent.h"
#include "config/workerconfig.h"
#include "process/terminationsignals.h"
#include "report/ledgerreport.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <unistd.h>

using namespace Qt::StringLiterals;

static void printError(const QString &message)
{
    std::fprintf(stderr, "ddl-worker: %s\n", qUtf8Printable(message));
}

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"ddl-worker"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(DDL_VERSION));
    if (qEnvironmentVariableIsEmpty("QT_MESSAGE_PATTERN")) {
        qSetMessagePattern(u"%{time yyyy-MM-dd hh:mm:ss.zzz} %{if-warning}warning: %{endif}"
                           u"%{if-critical}error: %{endif}%{if-fatal}fatal: %{endif}"
                           u"%{category}: %{message}"_s);
    }

    // `ddl-worker report`: the worker's contribution ledger, then exit (docs/owners.md).
    if (app.arguments().size() > 1 && app.arguments().at(1) == u"report"_s)
        return ddl::worker::runLedgerReport(app.arguments());

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Runs DDL tasks on this machine for a DDL server: enrolls, reports its CPUs, memory "
        u"and GPUs, leases tasks and streams their logs and outputs back.\n"
        u"  ddl-worker report [--json]   what this worker gave (its contribution ledger)"_s);
    parser.addHelpOption();
    parser.addVersionOption();
    ddl::worker::WorkerConfig::addOptions(parser);
    parser.process(app);
    if (!parser.positionalArguments().isEmpty()) {
        printError(u"unexpected argument '%1'; see --help"_s.arg(
            parser.positionalArguments().constFirst()));
        return 2;
    }
    const ddl::Result<ddl::worker::WorkerConfig> config =
        ddl::worker::WorkerConfig::fromParser(parser);
    if (!config) {
        printError(config.error().message);
        return 2;
    }
    if (const ddl::Status user = config->checkUser(::geteuid() == 0); !user) {
        printError(user.error().message);
        return 2;
    }

    ddl::worker::WorkerAgent agent(*config);
    ddl::worker::TerminationSignals termination;
    QObject::connect(
        &termination, &ddl::worker::TerminationSignals::terminationRequested, &app, [&agent](int) {
            agent.shutdown();
            QCoreApplication::quit();
        });
    QObject::connect(
        &agent, &ddl::worker::WorkerAgent::fatalError, &app, [&agent](const QString &message) {
            printError(message);
            agent.shutdown();
            QCoreApplication::exit(1);
        });
    const ddl::Status started = agent.start();
    if (!started) {
        printError(started.error().message);
        return 1;
    }
    // The owner changes their policy without a restart: SIGHUP, or by saving the config file.
    ddl::worker::ConfigReloader reloader(
        agent, [&parser] { return ddl::worker::WorkerConfig::fromParser(parser); },
        config->configFile);
    QObject::connect(&termination, &ddl::worker::TerminationSignals::reloadRequested, &reloader,
                     [&reloader] { reloader.reload(u"SIGHUP"_s); });
    return app.exec();
}
