#pragma once

#include "core/result.h"
#include "wire/jobstate.h"

#include <QList>
#include <QString>
#include <QUrlQuery>
#include <QVariantList>

namespace ddl::server {

// What a user may ask of the job list (GET /v1/jobs, docs/api.md): which states, a text that
// the name contains (or the uuid starts with), the order and the page. Read strictly: an unknown
// state, sort key or order is refused naming what is allowed.
struct JobListQuery
{
    enum class SortKey { Submitted, Name, State, Priority, Started, Finished };

    QList<JobState> states; // empty: every state
    QString text;           // empty: no text filter
    SortKey sort = SortKey::Submitted;
    bool descending = true; // newest first by default
    int limit = 50;
    int offset = 0;

    static Result<JobListQuery> fromUrlQuery(const QUrlQuery &query);

    // The SQL conditions after "WHERE user_id = ?" (empty, or starting with " AND "), and the
    // values they bind after the user's id; never the user's text itself.
    QString whereSql() const;
    QVariantList whereValues() const;
    // "ORDER BY ...", with the job's id last so that pages never overlap.
    QString orderSql() const;
};

} // namespace ddl::server
