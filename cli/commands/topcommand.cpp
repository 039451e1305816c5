#include "topcommand.h"

#include "clicontext.h"
#include "console.h"
#include "wire/utilisationsample.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString TopCommand::summary() const
{
    return tr("show the latest CPU, memory and GPU use of a job's tasks");
}

Status TopCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<QString> uuid = jobUuid(arguments);
    if (!uuid)
        return uuid.error();
    Result<ApiResponse> answer =
        context.sendAuthorized([&](ApiClient &api) { return api.jobUtilisation(*uuid); });
    if (!answer)
        return answer.error();
    const QJsonObject json = answer->json();
    if (*format == OutputFormat::Json) {
        context.console().print(Output::jsonLine(json));
        return Ok{};
    }
    QList<QStringList> rows;
    for (const QJsonValue &value : json.value("tasks"_L1).toArray()) {
        const TaskUtilisation task = TaskUtilisation::fromJson(value.toObject());
        QStringList row{u"%1[%2]"_s.arg(task.role).arg(task.roleIndex), task.worker, task.state};
        if (task.samples.isEmpty()) {
            row << u"-"_s << u"-"_s << u"-"_s << tr("no samples yet");
            rows.append(row);
            continue;
        }
        const UtilisationSample &latest = task.samples.constLast();
        QStringList gpus;
        for (const GpuReading &gpu : latest.gpus) {
            gpus << tr("%1: %2% %3/%4 MiB")
                        .arg(gpu.index)
                        .arg(gpu.utilisationPercent, 0, 'f', 0)
                        .arg(gpu.memoryUsedMb)
                        .arg(gpu.memoryTotalMb);
        }
        row << QString::number(latest.cpuPercent, 'f', 1) << Output::humanSize(latest.memoryBytes)
            << (gpus.isEmpty() ? u"-"_s : gpus.join(u", "_s))
            << QLocale().toString(QDateTime::fromMSecsSinceEpoch(latest.atMs).time(),
                                  QLocale::ShortFormat);
        rows.append(row);
    }
    if (rows.isEmpty()) {
        context.console().print(tr("The job has no tasks in its current attempt.") + u'\n');
        return Ok{};
    }
    context.console().print(Output::table(
        {tr("TASK"), tr("WORKER"), tr("STATE"), tr("CPU%"), tr("MEMORY"), tr("GPUS"), tr("AT")},
        rows));
    return Ok{};
}

} // namespace ddl::cli
