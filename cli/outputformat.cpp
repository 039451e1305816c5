#include "outputformat.h"

#include "wire/jobmessage.h"

#include <QJsonDocument>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

Result<OutputFormat> Output::formatFromName(const QString &name)
{
    if (name == u"json"_s)
        return OutputFormat::Json;
    if (name == u"table"_s || name == u"text"_s)
        return OutputFormat::Table;
    return Error::make(ErrorCode::Usage,
                       tr("--output must be 'table' or 'json', not '%1'").arg(name),
                       u"output"_s);
}

QString Output::table(const QStringList &header, const QList<QStringList> &rows)
{
    QList<qsizetype> widths(header.size(), 0);
    auto measure = [&widths](const QStringList &row) {
        for (qsizetype i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], row.at(i).size());
    };
    measure(header);
    for (const QStringList &row : rows)
        measure(row);

    auto render = [&widths](const QStringList &row) -> QString {
        QString line;
        for (qsizetype i = 0; i < widths.size(); ++i) {
            const QString cell = i < row.size() ? row.at(i) : QString();
            line += i + 1 < widths.size() ? cell.leftJustified(widths.at(i) + 2) : cell;
        }
        while (line.endsWith(u' '))
            line.chop(1);
        return line + u'\n';
    };
    QString text = render(header);
    for (const QStringList &row : rows)
        text += render(row);
    return text;
}

QString Output::jsonLine(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact)) + u'\n';
}

static QString orDash(const QString &text)
{
    return text.isEmpty() ? u"-"_s : text;
}

QString Output::jobTable(const QJsonArray &jobs)
{
    QList<QStringList> rows;
    for (const QJsonValue &value : jobs) {
        const Result<JobMessage> job = JobMessage::fromJson(value.toObject());
        if (!job) {
            rows.append({u"-"_s, job.error().message, u"-"_s, u"-"_s, u"-"_s});
            continue;
        }
        rows.append({orDash(job->uuid),
                     orDash(job->name),
                     stateName(job->state),
                     orDash(job->kind),
                     job->createdAt.isValid() ? job->createdAt.toString(Qt::ISODate) : u"-"_s});
    }
    return table({tr("UUID"), tr("NAME"), tr("STATE"), tr("KIND"), tr("CREATED")}, rows);
}

QString Output::taskTable(const QJsonArray &tasks)
{
    QList<QStringList> rows;
    for (const QJsonValue &value : tasks) {
        const Result<TaskMessage> task = TaskMessage::fromJson(value.toObject());
        if (!task) {
            rows.append({task.error().message, u"-"_s, u"-"_s, u"-"_s, u"-"_s, u"-"_s, u"-"_s});
            continue;
        }
        rows.append({orDash(task->role),
                     QString::number(task->roleIndex),
                     QString::number(task->attempt),
                     stateName(task->state),
                     task->exitCode ? QString::number(*task->exitCode) : u"-"_s,
                     orDash(task->worker),
                     task->workerTrust ? QString::number(*task->workerTrust) : u"-"_s});
    }
    // TRUST: the worker's trust score now, 0 to 100 (docs/trust.md).
    return table({tr("ROLE"), tr("INDEX"), tr("ATTEMPT"), tr("STATE"), tr("EXIT"), tr("WORKER"),
                  tr("TRUST")},
                 rows);
}

QString Output::jobStatus(const QJsonObject &object)
{
    const Result<JobMessage> job = JobMessage::fromJson(object);
    if (!job)
        return u"status: unknown (%1)\n"_s.arg(job.error().message);
    QString text = u"status: "_s + stateName(job->state) + u'\n';
    if (job->state == JobState::Waiting && !job->reason.isEmpty())
        text += u"reason: "_s + job->reason + u'\n';
    // Where each task's next attempt would start from (docs/checkpoints.md).
    for (const QJsonValue &value : object.value("checkpoints"_L1).toArray()) {
        const QJsonObject checkpoint = value.toObject();
        text += u"checkpoint: %1[%2] from attempt %3 at %4, %5 in %6 file(s)\n"_s.arg(
            checkpoint.value("role"_L1).toString(),
            QString::number(checkpoint.value("role_index"_L1).toInt()),
            QString::number(checkpoint.value("attempt"_L1).toInt()),
            checkpoint.value("created_at"_L1).toString(),
            humanSize(checkpoint.value("size"_L1).toInteger()),
            QString::number(checkpoint.value("files"_L1).toInt()));
    }
    return text;
}

QString Output::taskLabel(const TaskMessage &task)
{
    return task.role + u'[' + QString::number(task.roleIndex) + u']';
}

QStringList Output::lastLines(const QByteArray &log, int count)
{
    QByteArray text = log;
    if (text.endsWith('\n'))
        text.chop(1);
    if (text.isEmpty() || count <= 0)
        return {};
    const QList<QByteArray> all = text.split('\n');
    QStringList lines;
    for (qsizetype i = std::max<qsizetype>(0, all.size() - count); i < all.size(); ++i) {
        QByteArray line = all.at(i);
        if (line.endsWith('\r'))
            line.chop(1);
        lines.append(QString::fromUtf8(line));
    }
    return lines;
}

QString Output::banner(const QString &title)
{
    const QString rule = QString(43, u'=') + u'\n';
    return rule + title + u'\n' + rule;
}

QString Output::humanSize(qint64 bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    if (unit == 0)
        return QString::number(bytes) + u" B"_s;
    return QString::number(value, 'f', 1) + u' ' + QLatin1StringView(units[unit]);
}

} // namespace ddl::cli
