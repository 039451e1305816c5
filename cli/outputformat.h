#pragma once

#include "core/result.h"
#include "wire/jobmessage.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ddl::cli {

// How a command that reads prints what it read: aligned text for people, or JSON for scripts.
enum class OutputFormat { Table, Json };

// Renders the client's output in both forms. Pure functions of their input, so tests check them
// without a server.
class Output
{
    Q_DECLARE_TR_FUNCTIONS(Output)
public:
    // "table"/"text" or "json", as given to --output.
    static Result<OutputFormat> formatFromName(const QString &name);

    // Columns padded to their widest cell, two spaces apart, the header first. The last column is
    // not padded, so lines carry no trailing blanks.
    static QString table(const QStringList &header, const QList<QStringList> &rows);

    // One JSON document on one line, with a line ending.
    static QString jsonLine(const QJsonObject &object);

    // The job list of ApiClient::listJobs as a table: UUID, NAME, STATE, KIND, CREATED.
    static QString jobTable(const QJsonArray &jobs);
    // The tasks of a job: ROLE, INDEX, ATTEMPT, STATE, EXIT, WORKER.
    static QString taskTable(const QJsonArray &tasks);
    // "status: RUNNING" and, for a waiting job with a reason, "reason: ...".
    static QString jobStatus(const QJsonObject &job);
    // "worker[0]": how a task is named in logs and headings.
    static QString taskLabel(const TaskMessage &task);

    // The last count lines of a log (a final line without line ending counts).
    static QStringList lastLines(const QByteArray &log, int count);

    // The seed's section heading: the title between two lines of '='.
    static QString banner(const QString &title);

    // 1536 → "1.5 KiB".
    static QString humanSize(qint64 bytes);
};

} // namespace ddl::cli
