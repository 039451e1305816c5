#include "ledgercommand.h"

#include "clicontext.h"
#include "console.h"
#include "wire/contributionledger.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString LedgerCommand::summary() const
{
    return tr("show what your workers gave: GPU-hours, CPU-hours, tasks, jobs, bytes, "
              "preemptions");
}

static QStringList row(const QString &name, const LedgerTotals &totals)
{
    return {name,
            QString::number(totals.gpuHours(), 'f', 3),
            QString::number(totals.cpuCoreHours(), 'f', 3),
            u"%1/%2/%3"_s.arg(totals.tasksRun).arg(totals.tasksSucceeded).arg(totals.tasksFailed),
            QString::number(totals.jobs),
            QString::number(totals.preemptions),
            Output::humanSize(totals.bytesDownloaded),
            Output::humanSize(totals.bytesUploaded)};
}

Status LedgerCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<ApiResponse> answer =
        context.sendAuthorized([](ApiClient &api) { return api.ownerLedger(); });
    if (!answer)
        return answer.error();
    if (*format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(answer->json()));
        return Ok{};
    }
    const OwnerLedger ledger = OwnerLedger::fromJson(answer->json());
    if (ledger.workers.isEmpty()) {
        context.console().print(tr("You own no workers. A worker is yours when it enrolled with "
                                   "a token made for you (ddl-server token create --owner).") +
                                u'\n');
        return Ok{};
    }
    QList<QStringList> rows;
    for (const WorkerLedger &worker : ledger.workers)
        rows << row(worker.name, worker.totals);
    rows << row(tr("total"), ledger.total);
    context.console().print(Output::table({tr("WORKER"),
                                           tr("GPU-HOURS"),
                                           tr("CPU-HOURS"),
                                           tr("TASKS RUN/OK/FAILED"),
                                           tr("JOBS"),
                                           tr("PREEMPTIONS"),
                                           tr("DOWNLOADED"),
                                           tr("UPLOADED")},
                                          rows));
    return Ok{};
}

} // namespace ddl::cli
