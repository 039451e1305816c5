#include "jobstate.h"

using namespace Qt::StringLiterals;

namespace ddl {

QString stateName(JobState state)
{
    switch (state) {
    case JobState::Waiting:
        return u"WAITING"_s;
    case JobState::Running:
        return u"RUNNING"_s;
    case JobState::Succeeded:
        return u"SUCCEEDED"_s;
    case JobState::Failed:
        return u"FAILED"_s;
    case JobState::Stopped:
        return u"STOPPED"_s;
    }
    Q_UNREACHABLE();
    return {};
}

QStringList allStateNames()
{
    QStringList names;
    for (const JobState state : AllJobStates)
        names << stateName(state);
    return names;
}

Result<JobState> parseJobState(QStringView name)
{
    for (const JobState state : AllJobStates) {
        if (name == stateName(state))
            return state;
    }
    return Error::make(
        ErrorCode::BadRequest,
        u"'%1' is not a job state; use one of %2"_s.arg(name, allStateNames().join(u", ")),
        u"state"_s);
}

bool isFinal(JobState state)
{
    return state == JobState::Succeeded || state == JobState::Failed || state == JobState::Stopped;
}

bool isFinalState(QStringView name)
{
    const Result<JobState> state = parseJobState(name);
    return state && isFinal(*state);
}

} // namespace ddl
