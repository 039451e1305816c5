#pragma once

#include <QString>

namespace ddl::server {

// The states of jobs and tasks, as stored and as sent on the wire.
namespace JobState {
inline const QString Waiting = QStringLiteral("WAITING");
inline const QString Running = QStringLiteral("RUNNING");
inline const QString Succeeded = QStringLiteral("SUCCEEDED");
inline const QString Failed = QStringLiteral("FAILED");
inline const QString Stopped = QStringLiteral("STOPPED");

inline bool isFinal(const QString &state)
{
    return state == Succeeded || state == Failed || state == Stopped;
}
inline bool isKnown(const QString &state)
{
    return state == Waiting || state == Running || isFinal(state);
}
} // namespace JobState

} // namespace ddl::server
