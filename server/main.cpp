#include "app/memorytuning.h"
#include "app/serverapp.h"
#include "app/tokencommand.h"
#include "app/userlimitscommand.h"
#include "app/workerscommand.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>

using namespace ddl::server;

static int fail(const QString &message)
{
    std::fprintf(stderr, "ddl-server: error: %s\n", qUtf8Printable(message));
    return 1;
}

int main(int argc, char *argv[])
{
    tuneAllocatorForStreaming();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("ddl-server"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DDL_VERSION));
    qSetMessagePattern(QStringLiteral("%{time yyyy-MM-ddThh:mm:ss.zzz} %{type} %{category}: %{message}"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "DDL server: jobs, uploads and workers over HTTPS.\n"
        "  ddl-server --data-dir DIR [--listen HOST:PORT] [--database postgresql://...]\n"
        "                                                   run the server\n"
        "  ddl-server token create --data-dir DIR [--owner EMAIL]\n"
        "                                                   print a worker enrollment token\n"
        "  ddl-server user limits --data-dir DIR --email E [--max-gpus N] [--max-running-jobs N]\n"
        "                                                   set a user's limits (-1: none)\n"
        "  ddl-server workers list --data-dir DIR          workers with their trust\n"
        "  ddl-server workers quarantine ID --data-dir DIR [--reason TEXT]\n"
        "  ddl-server workers release ID --data-dir DIR    (docs/trust.md)"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configOption(QStringLiteral("config"),
                                          QStringLiteral("YAML file with the same settings."),
                                          QStringLiteral("file"));
    const QCommandLineOption dataDirOption(QStringLiteral("data-dir"),
                                           QStringLiteral("Folder of the store, blobs and logs."),
                                           QStringLiteral("dir"));
    const QCommandLineOption databaseOption(
        QStringLiteral("database"),
        QStringLiteral("PostgreSQL store, postgresql://USER:PASSWORD@HOST:PORT/DBNAME (default: "
                       "SQLite in DIR). Servers on one database and DIR share the work."),
        QStringLiteral("url"));
    const QCommandLineOption listenOption(QStringLiteral("listen"),
                                          QStringLiteral("Address and port (default "
                                                         "127.0.0.1:8443; port 0 picks one)."),
                                          QStringLiteral("host:port"));
    const QCommandLineOption certOption(QStringLiteral("tls-cert"),
                                        QStringLiteral("PEM certificate (default: self-signed in "
                                                       "DIR/tls)."),
                                        QStringLiteral("file"));
    const QCommandLineOption keyOption(QStringLiteral("tls-key"), QStringLiteral("PEM private key."),
                                       QStringLiteral("file"));
    const QCommandLineOption timeoutOption(QStringLiteral("worker-timeout"),
                                           QStringLiteral("Seconds without a heartbeat before a "
                                                          "worker is lost (default 20)."),
                                           QStringLiteral("seconds"));
    const QCommandLineOption samplesOption(
        QStringLiteral("utilisation-samples-per-task"),
        QStringLiteral("Utilisation samples kept per task (default 1000, at least 10); older "
                       "ones are thinned."),
        QStringLiteral("n"));
    const QCommandLineOption emailOption(QStringLiteral("email"),
                                         QStringLiteral("user limits: the user's email."),
                                         QStringLiteral("email"));
    const QCommandLineOption ownerOption(QStringLiteral("owner"),
                                         QStringLiteral("token create: the user who owns the "
                                                        "workers it enrolls (their ledger)."),
                                         QStringLiteral("email"));
    const QCommandLineOption maxGpusOption(QStringLiteral("max-gpus"),
                                           QStringLiteral("user limits: GPUs in use at once "
                                                          "(-1: no limit)."),
                                           QStringLiteral("n"));
    const QCommandLineOption maxJobsOption(QStringLiteral("max-running-jobs"),
                                           QStringLiteral("user limits: jobs running at once "
                                                          "(-1: no limit)."),
                                           QStringLiteral("n"));
    const QCommandLineOption canariesOption(
        QStringLiteral("canaries"),
        QStringLiteral("Check each worker with known-answer canary jobs before its first task "
                       "and at random later; quarantine it when one fails (docs/trust.md)."));
    const QCommandLineOption canaryIntervalOption(
        QStringLiteral("canary-interval-hours"),
        QStringLiteral("A verified worker's next canary comes between 0.5 and 1.5 times this "
                       "after its last (default 24)."),
        QStringLiteral("hours"));
    const QCommandLineOption canaryDeadlineOption(
        QStringLiteral("canary-deadline-minutes"),
        QStringLiteral("A canary not judged this long after it was created fails, and its worker "
                       "is quarantined (default 15)."),
        QStringLiteral("minutes"));
    const QCommandLineOption reasonOption(QStringLiteral("reason"),
                                          QStringLiteral("workers quarantine: why, for the list."),
                                          QStringLiteral("text"));
    parser.addOptions({configOption, dataDirOption, databaseOption, listenOption, certOption,
                       keyOption, timeoutOption, samplesOption, emailOption, ownerOption, maxGpusOption,
                       maxJobsOption, canariesOption, canaryIntervalOption, canaryDeadlineOption,
                       reasonOption});
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("token create | user limits | workers list | "
                                                "workers quarantine ID | workers release ID"));
    parser.process(app);

    ServerConfig config;
    if (parser.isSet(configOption)) {
        ddl::Result<ServerConfig> loaded = ServerConfig::fromYamlFile(parser.value(configOption));
        if (!loaded)
            return fail(loaded.error().message);
        config = *loaded;
    }
    if (parser.isSet(dataDirOption))
        config.dataDir = parser.value(dataDirOption);
    if (parser.isSet(databaseOption))
        config.database = parser.value(databaseOption);
    if (parser.isSet(listenOption)) {
        if (ddl::Status set = config.setListen(parser.value(listenOption)); !set)
            return fail(set.error().message);
    }
    if (parser.isSet(certOption))
        config.tlsCert = parser.value(certOption);
    if (parser.isSet(keyOption))
        config.tlsKey = parser.value(keyOption);
    if (parser.isSet(timeoutOption))
        config.workerTimeoutSeconds = std::max(1, parser.value(timeoutOption).toInt());
    if (parser.isSet(canariesOption))
        config.canaries = true;
    if (parser.isSet(canaryIntervalOption)) {
        bool ok = false;
        config.canaryIntervalHours = parser.value(canaryIntervalOption).toDouble(&ok);
        if (!ok || !(config.canaryIntervalHours > 0))
            return fail(QStringLiteral("--canary-interval-hours must be a number of hours more "
                                       "than 0"));
    }
    if (parser.isSet(canaryDeadlineOption)) {
        bool ok = false;
        config.canaryDeadlineMinutes = parser.value(canaryDeadlineOption).toDouble(&ok);
        if (!ok || !(config.canaryDeadlineMinutes > 0))
            return fail(QStringLiteral("--canary-deadline-minutes must be a number of minutes "
                                       "more than 0"));
    }
    if (parser.isSet(samplesOption))
        config.utilisationSamplesPerTask = std::max(10, parser.value(samplesOption).toInt());
    if (config.dataDir.isEmpty())
        return fail(QStringLiteral("--data-dir DIR is required (or data_dir in --config)"));

    const QStringList command = parser.positionalArguments();
    if (command == QStringList{QStringLiteral("token"), QStringLiteral("create")}) {
        ddl::Result<QString> token = createEnrollToken(config.dataDir, config.database,
                                                     parser.value(ownerOption));
        if (!token)
            return fail(token.error().message);
        std::printf("%s\n", qUtf8Printable(*token));
        return 0;
    }
    if (command == QStringList{QStringLiteral("user"), QStringLiteral("limits")}) {
        UserLimitsChange change{parser.value(emailOption), std::nullopt, std::nullopt};
        if (change.email.isEmpty())
            return fail(QStringLiteral("user limits needs --email of the user"));
        for (const auto &[option, target] :
             {std::pair{&maxGpusOption, &change.maxGpus}, std::pair{&maxJobsOption, &change.maxRunningJobs}}) {
            if (!parser.isSet(*option))
                continue;
            bool ok = false;
            const int limit = parser.value(*option).toInt(&ok);
            if (!ok || limit < -1)
                return fail(QStringLiteral("--%1 must be a whole number >= 0, or -1 for no limit")
                                .arg(option->names().constFirst()));
            *target = limit;
        }
        ddl::Result<QString> limits = setUserLimits(config.dataDir, change, config.database);
        if (!limits)
            return fail(limits.error().message);
        std::printf("%s\n", qUtf8Printable(*limits));
        return 0;
    }
    if (command.value(0) == QStringLiteral("workers")) {
        const WorkersCommand workers{config.dataDir, config.database};
        const QString action = command.value(1);
        ddl::Result<QString> answer = QString();
        if (action == QStringLiteral("list") && command.size() == 2) {
            answer = workers.list();
        } else if ((action == QStringLiteral("quarantine") || action == QStringLiteral("release"))
                   && command.size() == 3) {
            bool ok = false;
            const qint64 id = command.at(2).toLongLong(&ok);
            if (!ok || id <= 0)
                return fail(QStringLiteral("workers %1 needs the worker's id (a number; see "
                                           "ddl-server workers list), got \"%2\"")
                                .arg(action, command.at(2)));
            answer = action == QStringLiteral("release")
                         ? workers.release(id)
                         : workers.quarantine(id, parser.value(reasonOption));
        } else {
            return fail(QStringLiteral("workers needs list, quarantine ID or release ID, got "
                                       "\"%1\"")
                            .arg(command.join(u' ')));
        }
        if (!answer)
            return fail(answer.error().message);
        std::printf("%s\n", qUtf8Printable(*answer));
        return 0;
    }
    if (!command.isEmpty())
        return fail(QStringLiteral("unknown command \"%1\"; the commands are: token create, "
                                   "user limits, workers")
                        .arg(command.join(u' ')));

    ServerApp server(config);
    if (ddl::Status started = server.start(); !started)
        return fail(started.error().message);
    return app.exec();
}
