#pragma once

#include "core/result.h"

#include <QString>
#include <QStringList>

#include <array>

namespace ddl {

// The states of jobs and tasks (docs/api.md), as stored and as sent on the wire.
enum class JobState { Waiting, Running, Succeeded, Failed, Stopped };

inline constexpr std::array<JobState, 5> AllJobStates{
    JobState::Waiting, JobState::Running, JobState::Succeeded, JobState::Failed, JobState::Stopped};

// The wire spelling: "WAITING", "RUNNING", ...
QString stateName(JobState state);
// Every wire spelling, in the order of AllJobStates.
QStringList allStateNames();
// Reads a wire spelling; anything else is refused with an error that lists the states.
Result<JobState> parseJobState(QStringView name);
// SUCCEEDED, FAILED or STOPPED: nothing more will happen to a job (or task) in that state.
bool isFinal(JobState state);
// isFinal() of a wire spelling; false for a spelling that is no state.
bool isFinalState(QStringView name);

} // namespace ddl
