#include "progresscommand.h"

#include "clicontext.h"
#include "commands/jobapi.h"
#include "console.h"
#include "wire/jobstate.h"

#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString ProgressCommand::summary() const
{
    return tr("show a job's state, its tasks and the last %1 log lines of each").arg(TailLines);
}

Status ProgressCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<QString> uuid = jobUuid(arguments);
    if (!uuid)
        return uuid.error();
    Result<QJsonObject> job = JobApi::job(context, *uuid);
    if (!job)
        return job.error();
    const Result<JobMessage> read = JobMessage::fromJson(*job);
    if (!read)
        return read.error();

    QList<QStringList> tails;
    for (const TaskMessage &task : read->tasks) {
        // A task that never started has no log yet.
        if (task.state == JobState::Waiting) {
            tails.append(QStringList());
            continue;
        }
        Result<QStringList> tail = JobApi::logTail(context, *uuid, task.id, TailLines);
        if (!tail)
            return tail.error();
        tails.append(*tail);
    }

    QJsonArray tasks = job->value("tasks"_L1).toArray();
    if (*format == OutputFormat::Json) {
        QJsonObject answer = *job;
        for (qsizetype i = 0; i < tasks.size(); ++i) {
            QJsonObject task = tasks.at(i).toObject();
            task.insert("log_tail"_L1, QJsonArray::fromStringList(tails.at(i)));
            tasks.replace(i, task);
        }
        answer.insert("tasks"_L1, tasks);
        context.console().print(Output::jsonLine(answer));
        return Ok{};
    }

    Console &console = context.console();
    console.print(Output::jobStatus(*job));
    if (tasks.isEmpty())
        return Ok{};
    console.print(u'\n' + Output::taskTable(tasks));
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        if (tails.at(i).isEmpty())
            continue;
        const TaskMessage &task = read->tasks.at(i);
        console.print(u'\n' +
                      tr("--- %1 (task %2, attempt %3): last log lines ---")
                          .arg(Output::taskLabel(task))
                          .arg(task.id)
                          .arg(task.attempt) +
                      u'\n');
        console.print(tails.at(i).join(u'\n') + u'\n');
    }
    return Ok{};
}

} // namespace ddl::cli
