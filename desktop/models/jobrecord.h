#pragma once

#include "wire/jobmessage.h"

#include <QColor>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace ddl::desktop {

// One job as a row of the job list: the fields of the wire's job object that the list shows.
struct JobRecord
{
    QString uuid;
    QString name;
    QString state;
    QString kind;
    QString reason;
    int tasks = 0;
    int gpus = 0;
    int attempt = 1;
    int retryCount = 0;
    int priority = 0;
    QDateTime createdAt;
    QDateTime startedAt;
    QDateTime finishedAt;

    // A job this version cannot read comes back without a uuid, its reason saying why.
    static JobRecord fromJson(const QJsonObject &job);
    static JobRecord fromMessage(const JobMessage &job);
    bool isFinal() const;
    // Seconds it ran (so far, for a running job); -1 before it started.
    qint64 durationSeconds(const QDateTime &now) const;

    friend bool operator==(const JobRecord &, const JobRecord &) = default;
};

// How states look: the colour of a state and its name in the user's language.
class JobStateStyle
{
    Q_DECLARE_TR_FUNCTIONS(JobStateStyle)
public:
    static QColor color(const QString &state);
    static QString displayName(const QString &state);
    static QString formatDuration(qint64 seconds);
};

} // namespace ddl::desktop
