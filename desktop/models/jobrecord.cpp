#include "jobrecord.h"

#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

QDateTime JobRecord::parseTime(const QJsonValue &value)
{
    if (!value.isString())
        return {};
    QDateTime time = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

JobRecord JobRecord::fromJson(const QJsonObject &job)
{
    JobRecord record;
    record.uuid = job.value("uuid"_L1).toString();
    record.name = job.value("name"_L1).toString();
    record.state = job.value("state"_L1).toString();
    record.kind = job.value("kind"_L1).toString();
    record.reason = job.value("reason"_L1).toString();
    record.attempt = job.value("attempt"_L1).toInt(1);
    record.retryCount = job.value("retry_count"_L1).toInt();
    record.createdAt = parseTime(job.value("created_at"_L1));
    record.startedAt = parseTime(job.value("started_at"_L1));
    record.finishedAt = parseTime(job.value("finished_at"_L1));
    const QJsonArray roles = job.value("spec"_L1).toObject().value("taskRoles"_L1).toArray();
    for (const QJsonValue &role : roles) {
        const QJsonObject object = role.toObject();
        const int number = object.value("taskNumber"_L1).toInt(1);
        record.tasks += number;
        record.gpus += number * object.value("gpuNumber"_L1).toInt();
    }
    return record;
}

bool JobRecord::isFinalState(const QString &state)
{
    return state == u"SUCCEEDED"_s || state == u"FAILED"_s || state == u"STOPPED"_s;
}

bool JobRecord::isFinal() const
{
    return isFinalState(state);
}

qint64 JobRecord::durationSeconds(const QDateTime &now) const
{
    if (!startedAt.isValid())
        return -1;
    const QDateTime end = finishedAt.isValid() ? finishedAt : now;
    return std::max<qint64>(0, startedAt.secsTo(end));
}

QColor JobStateStyle::color(const QString &state)
{
    if (state == u"RUNNING"_s)
        return QColor(0x1f, 0x6f, 0xd1);
    if (state == u"SUCCEEDED"_s)
        return QColor(0x1a, 0x7f, 0x37);
    if (state == u"FAILED"_s)
        return QColor(0xcf, 0x22, 0x2e);
    if (state == u"STOPPED"_s)
        return QColor(0x6e, 0x77, 0x81);
    return QColor(0x9a, 0x67, 0x00); // WAITING
}

QString JobStateStyle::displayName(const QString &state)
{
    if (state == u"WAITING"_s)
        return tr("Waiting");
    if (state == u"RUNNING"_s)
        return tr("Running");
    if (state == u"SUCCEEDED"_s)
        return tr("Succeeded");
    if (state == u"FAILED"_s)
        return tr("Failed");
    if (state == u"STOPPED"_s)
        return tr("Stopped");
    return state;
}

QString JobStateStyle::formatDuration(qint64 seconds)
{
    if (seconds < 0)
        return {};
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    return tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

} // namespace ddl::desktop
