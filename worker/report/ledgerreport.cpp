#include "ledgerreport.h"

#include "agent/workeridentity.h"
#include "api/apiclient.h"
#include "config/bytesize.h"
#include "config/workerconfig.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace ddl::worker {

static QString hours(double seconds)
{
    return QString::number(seconds / 3600.0, 'f', 3);
}

static QString bytes(qint64 count)
{
    return u"%1 (%2 bytes)"_s.arg(formatByteSize(count)).arg(count);
}

QString ledgerText(const WorkerLedger &ledger)
{
    const LedgerTotals &t = ledger.totals;
    QString text = u"Worker %1 \"%2\"%3\n"_s.arg(
        ledger.workerId,
        ledger.name,
        ledger.owner.isEmpty() ? u", no owner"_s : u", owned by "_s + ledger.owner);
    text += u"GPU-hours given: %1 (%2 GPU-seconds)\n"_s.arg(hours(t.gpuSeconds))
                .arg(t.gpuSeconds, 0, 'f', 1);
    text += u"CPU-hours given: %1 (%2 core-seconds reserved; %3 CPU-seconds used, from the "
            "utilisation samples)\n"_s.arg(hours(t.cpuCoreSeconds))
                .arg(t.cpuCoreSeconds, 0, 'f', 1)
                .arg(t.cpuSecondsMeasured, 0, 'f', 1);
    text += u"Tasks run: %1 (%2 succeeded, %3 failed)\n"_s.arg(t.tasksRun)
                .arg(t.tasksSucceeded)
                .arg(t.tasksFailed);
    text += u"Jobs run: %1\n"_s.arg(t.jobs);
    text += u"Preemptions: %1\n"_s.arg(t.preemptions);
    text += u"Downloaded: %1\n"_s.arg(bytes(t.bytesDownloaded));
    text += u"Uploaded: %1\n"_s.arg(bytes(t.bytesUploaded));
    return text;
}

static int fail(const QString &message, int status = 1)
{
    std::fprintf(stderr, "ddl-worker report: %s\n", qUtf8Printable(message));
    return status;
}

int runLedgerReport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"ddl-worker report [--json] [--since TIME] [--until TIME] [config flags]\n"
        u"Prints what this worker gave: GPU-hours, CPU-hours, tasks and jobs run, bytes moved "
        u"and preemptions, as the server's contribution ledger holds them. Reads the worker's "
        u"config (--config, or --server, --ca-cert and --work-dir) and its enrollment."_s);
    parser.addHelpOption();
    WorkerConfig::addOptions(parser);
    const QCommandLineOption jsonOption(u"json"_s, u"Print the ledger as JSON."_s);
    const QCommandLineOption sinceOption(
        u"since"_s,
        u"Only what happened from this time on (ISO 8601, 2026-11-01T00:00:00Z)."_s,
        u"time"_s);
    const QCommandLineOption untilOption(
        u"until"_s, u"Only what happened before this time."_s, u"time"_s);
    parser.addOptions({jsonOption, sinceOption, untilOption});
    // arguments[1] is "report".
    QStringList withoutCommand = arguments;
    withoutCommand.removeAt(1);
    if (!parser.parse(withoutCommand))
        return fail(parser.errorText(), 2);
    if (parser.isSet(u"help"_s)) {
        std::printf("%s", qUtf8Printable(parser.helpText()));
        return 0;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(u"unexpected argument '%1'; see ddl-worker report --help"_s.arg(
                        parser.positionalArguments().constFirst()),
                    2);
    const Result<WorkerConfig> config = WorkerConfig::fromParser(parser);
    if (!config)
        return fail(config.error().message, 2);

    const QString identityPath = config->workDir + u"/worker.json"_s;
    const Result<std::optional<WorkerIdentity>> identity = WorkerIdentity::load(identityPath);
    if (!identity)
        return fail(identity.error().message);
    if (!*identity)
        return fail(u"this worker has not enrolled yet (no %1): start ddl-worker with this "
                    "config first"_s.arg(identityPath));
    if ((*identity)->server != config->serverUrl.toString())
        return fail(
            u"%1 holds the enrollment of %2, not of %3: pass the --server the worker "
            "enrolled with"_s.arg(identityPath, (*identity)->server, config->serverUrl.toString()));
    ServerTrust trust;
    if (!config->caCertFile.isEmpty()) {
        Result<ServerTrust> fromFile = ServerTrust::fromCaFile(config->caCertFile);
        if (!fromFile)
            return fail(fromFile.error().message);
        trust = *fromFile;
    }
    ApiClient client(config->serverUrl, trust);
    client.setBearerToken((*identity)->workerToken);
    QUrlQuery query;
    for (const QCommandLineOption *option : {&sinceOption, &untilOption}) {
        if (parser.isSet(*option))
            query.addQueryItem(option->names().constFirst(), parser.value(*option));
    }
    std::unique_ptr<ApiRequest> request(
        client.get(u"/v1/workers/%1/ledger"_s.arg((*identity)->workerId), query));
    const Result<ApiResponse> &answer = request->waitForFinished();
    if (!answer)
        return fail(u"cannot read the ledger from %1: %2"_s.arg(config->serverUrl.toString(),
                                                                answer.error().message));
    if (parser.isSet(jsonOption)) {
        std::printf("%s",
                    QJsonDocument(answer->json()).toJson(QJsonDocument::Indented).constData());
        return 0;
    }
    std::printf("%s", qUtf8Printable(ledgerText(WorkerLedger::fromJson(answer->json()))));
    return 0;
}

} // namespace ddl::worker
