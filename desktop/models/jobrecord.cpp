#include "jobrecord.h"

#include <QJsonArray>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JobRecord JobRecord::fromJson(const QJsonObject &job)
{
    const Result<JobMessage> message = JobMessage::fromJson(job);
    if (!message) {
        // A job this version cannot read (a state a newer server added): say why in its row.
        JobRecord record;
        record.reason = message.error().message;
        return record;
    }
    return fromMessage(*message);
}

JobRecord JobRecord::fromMessage(const JobMessage &message)
{
    JobRecord record;
    record.uuid = message.uuid;
    record.name = message.name;
    record.state = stateName(message.state);
    record.kind = message.kind;
    record.reason = message.reason;
    record.attempt = message.attempt;
    record.retryCount = message.retryCount;
    record.priority = message.priority;
    record.createdAt = message.createdAt;
    record.startedAt = message.startedAt;
    record.finishedAt = message.finishedAt;
    const QJsonArray roles = message.spec.value("taskRoles"_L1).toArray();
    for (const QJsonValue &role : roles) {
        const QJsonObject object = role.toObject();
        const int number = object.value("taskNumber"_L1).toInt(1);
        record.tasks += number;
        record.gpus += number * object.value("gpuNumber"_L1).toInt();
    }
    return record;
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
    if (state == stateName(JobState::Running))
        return QColor(0x1f, 0x6f, 0xd1);
    if (state == stateName(JobState::Succeeded))
        return QColor(0x1a, 0x7f, 0x37);
    if (state == stateName(JobState::Failed))
        return QColor(0xcf, 0x22, 0x2e);
    if (state == stateName(JobState::Stopped))
        return QColor(0x6e, 0x77, 0x81);
    return QColor(0x9a, 0x67, 0x00); // WAITING
}

QString JobStateStyle::displayName(const QString &state)
{
    if (state == stateName(JobState::Waiting))
        return tr("Waiting");
    if (state == stateName(JobState::Running))
        return tr("Running");
    if (state == stateName(JobState::Succeeded))
        return tr("Succeeded");
    if (state == stateName(JobState::Failed))
        return tr("Failed");
    if (state == stateName(JobState::Stopped))
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
