#pragma once

#include "command.h"

#include <QJsonObject>

namespace ddl::cli {

class Console;

// ddlcli logs --job_uuid=UUID [--task ID] [--stream all|stdout|stderr] [-f]: the tasks' output
// (everything merged, or only their stdout or stderr); with -f it follows them by offset until
// every task's log is complete.
class LogsCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(LogsCommand)
public:
    static constexpr int PollIntervalMs = 300;

    QString name() const override { return QStringLiteral("logs"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    Status run(CliContext &context, const ParsedArguments &arguments) override;

    // Splits log bytes into lines for printing; keeps an unfinished last line until its end
    // arrives. Text lines get the task's label in front when several tasks are shown; JSON lines
    // are objects {"task","role","role_index","attempt","line"}.
    class LineWriter
    {
    public:
        LineWriter(Console &console, OutputFormat format, const TaskMessage &task, bool labelled);
        void write(const QByteArray &bytes);
        // Prints the unfinished last line, if any.
        void flush();

    private:
        void emitLine(QByteArray line);

        Console &m_console;
        OutputFormat m_format;
        TaskMessage m_task;
        QString m_prefix;
        QByteArray m_pending;
    };
};

} // namespace ddl::cli
