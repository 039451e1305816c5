#include "logscommand.h"

#include "clicontext.h"
#include "commands/jobapi.h"
#include "console.h"
#include "wire/jobstate.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QTimer>

#include <map>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

static void waitMs(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

LogsCommand::LineWriter::LineWriter(Console &console,
                                    OutputFormat format,
                                    const TaskMessage &task,
                                    bool labelled)
    : m_console(console)
    , m_format(format)
    , m_task(task)
    , m_prefix(labelled ? Output::taskLabel(task) + u"| "_s : QString())
{
}

void LogsCommand::LineWriter::write(const QByteArray &bytes)
{
    m_pending += bytes;
    qsizetype start = 0;
    for (qsizetype newline = m_pending.indexOf('\n'); newline >= 0;
         newline = m_pending.indexOf('\n', start)) {
        emitLine(m_pending.mid(start, newline - start));
        start = newline + 1;
    }
    m_pending.remove(0, start);
}

void LogsCommand::LineWriter::flush()
{
    if (!m_pending.isEmpty())
        emitLine(std::exchange(m_pending, {}));
}

void LogsCommand::LineWriter::emitLine(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    const QString text = QString::fromUtf8(line);
    if (m_format == OutputFormat::Json) {
        m_console.print(Output::jsonLine({{"task"_L1, m_task.id},
                                          {"role"_L1, m_task.role},
                                          {"role_index"_L1, m_task.roleIndex},
                                          {"attempt"_L1, m_task.attempt},
                                          {"line"_L1, text}}));
    } else {
        m_console.print(m_prefix + text + u'\n');
    }
}

QString LogsCommand::summary() const
{
    return tr("print the output of a job's tasks; -f follows it until the tasks end");
}

QList<OptionSpec> LogsCommand::options() const
{
    return {
        jobUuidOption(),
        {u"task"_s,
         u"ID"_s,
         tr("only this task (its id, as in --output json of progress)"),
         {},
         false},
        {u"stream"_s,
         u"all|stdout|stderr"_s,
         tr("only the tasks' stdout or stderr (default: all, both merged with the worker's own "
            "lines)"),
         {},
         false},
        {u"follow"_s, {}, tr("keep printing new output until every task has ended"), u'f', false},
        outputOption()};
}

namespace {
// One task being read: where its log continues, and whether its end was reached.
struct TaskLog
{
    TaskMessage task;
    std::unique_ptr<LogsCommand::LineWriter> writer;
    qint64 offset = 0;
    bool complete = false;
    bool idle = false; // the last read brought nothing
};
} // namespace

Status LogsCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = outputFormat(arguments);
    if (!format)
        return format.error();
    Result<QString> uuid = jobUuid(arguments);
    if (!uuid)
        return uuid.error();
    std::optional<qint64> onlyTask;
    if (arguments.isSet(u"task"_s)) {
        Result<qint64> id = positiveNumber(arguments, u"task"_s, true);
        if (!id)
            return id.error();
        onlyTask = *id;
    }
    const bool follow = arguments.isSet(u"follow"_s);
    const QString streamName = arguments.value(u"stream"_s);
    const std::optional<LogStream> stream = parseLogStream(streamName);
    if (!stream) {
        return Error::make(ErrorCode::Usage,
                           tr("--stream must be all, stdout or stderr, not \"%1\"").arg(streamName),
                           u"stream"_s);
    }

    Result<JobMessage> job = JobApi::jobMessage(context, *uuid);
    if (!job)
        return job.error();

    std::map<qint64, TaskLog> logs; // by task id: the order of the ids is the order of start
    bool labelled = false;
    auto addTasks = [&](const JobMessage &read) {
        labelled = labelled || (!onlyTask && read.tasks.size() > 1);
        for (const TaskMessage &task : read.tasks) {
            const qint64 id = task.id;
            if (onlyTask && id != *onlyTask)
                continue;
            auto it = logs.find(id);
            if (it == logs.end()) {
                TaskLog log;
                log.task = task;
                log.writer =
                    std::make_unique<LineWriter>(context.console(), *format, task, labelled);
                logs.emplace(id, std::move(log));
            } else {
                it->second.task = task;
            }
        }
    };
    addTasks(*job);

    if (onlyTask && logs.empty()) {
        QStringList known;
        for (const TaskMessage &task : job->tasks)
            known << QString::number(task.id) + u" ("_s + Output::taskLabel(task) + u')';
        return Error::make(ErrorCode::Usage,
                           tr("job %1 has no task %2; its tasks are: %3")
                               .arg(*uuid)
                               .arg(*onlyTask)
                               .arg(known.isEmpty() ? tr("none yet") : known.join(u", "_s)),
                           u"task"_s);
    }

    QElapsedTimer sinceJobRead;
    sinceJobRead.start();
    for (;;) {
        bool moreNow = false;
        for (auto &[id, log] : logs) {
            if (log.complete)
                continue;
            Result<LogPage> chunk =
                JobApi::logChunk(context, *uuid, id, log.offset, JobApi::LogPageSize, *stream);
            if (!chunk)
                return chunk.error();
            log.writer->write(chunk->bytes);
            log.idle = chunk->bytes.isEmpty();
            log.complete = chunk->complete;
            if (chunk->nextOffset > log.offset)
                log.offset = chunk->nextOffset;
            if (!log.idle && !log.complete)
                moreNow = true;
        }
        if (moreNow)
            continue; // read on at once while a page was full

        if (!follow)
            break;

        const bool allComplete = std::all_of(
            logs.begin(), logs.end(), [](const auto &entry) { return entry.second.complete; });
        // New attempts bring new tasks: read the job again now and then, and at the end.
        if (allComplete || sinceJobRead.elapsed() > 3000) {
            Result<JobMessage> current = JobApi::jobMessage(context, *uuid);
            if (!current)
                return current.error();
            sinceJobRead.restart();
            const std::size_t before = logs.size();
            addTasks(*current);
            const bool jobEnded = isFinal(current->state);
            if (jobEnded) {
                // A task that ended without ever starting may never report a complete log.
                for (auto &[id, log] : logs) {
                    if (log.idle && isFinal(log.task.state))
                        log.complete = true;
                }
            }
            const bool nowComplete = std::all_of(
                logs.begin(), logs.end(), [](const auto &entry) { return entry.second.complete; });
            if (jobEnded && nowComplete && logs.size() == before)
                break;
            if (logs.empty() && jobEnded)
                break;
        }
        // One task still writing: stream its log as the worker sends it instead of polling.
        const auto open = std::count_if(logs.begin(), logs.end(),
                                        [](const auto &entry) { return !entry.second.complete; });
        auto only = std::find_if(logs.begin(), logs.end(),
                                 [](const auto &entry) { return !entry.second.complete; });
        if (open == 1 && only->second.idle) {
            TaskLog &log = only->second;
            Result<qint64> reached = JobApi::followLog(
                context, *uuid, only->first, log.offset,
                [&log](const QByteArray &bytes) { log.writer->write(bytes); }, *stream);
            if (!reached)
                return reached.error();
            log.offset = *reached;
            continue;
        }
        waitMs(PollIntervalMs);
    }
    for (auto &[id, log] : logs)
        log.writer->flush();
    return Ok{};
}

} // namespace ddl::cli
