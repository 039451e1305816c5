#include "joblistquery.h"

#include "http/requestreader.h"

#include <algorithm>
#include <climits>

using namespace Qt::StringLiterals;

namespace ddl::server {

namespace {

struct SortColumn
{
    JobListQuery::SortKey key;
    QLatin1StringView name;   // as the query spells it
    QLatin1StringView column; // as the store orders it
};

constexpr SortColumn SortColumns[] = {
    {JobListQuery::SortKey::Submitted, "submitted"_L1, "id"_L1},
    {JobListQuery::SortKey::Name, "name"_L1, "LOWER(name)"_L1},
    {JobListQuery::SortKey::State, "state"_L1, "state"_L1},
    {JobListQuery::SortKey::Priority, "priority"_L1, "priority"_L1},
    {JobListQuery::SortKey::Started, "started"_L1, "started_at"_L1},
    {JobListQuery::SortKey::Finished, "finished"_L1, "finished_at"_L1},
};

constexpr qsizetype MaxTextChars = 200;

Result<QList<JobState>> parseStates(const QString &list)
{
    QList<JobState> states;
    for (const QString &name : list.split(u',', Qt::SkipEmptyParts)) {
        Result<JobState> state = parseJobState(name.trimmed().toUpper());
        if (!state)
            return state.error();
        if (!states.contains(*state))
            states.append(*state);
    }
    return states;
}

Result<JobListQuery::SortKey> parseSort(const QString &name)
{
    QStringList known;
    for (const SortColumn &column : SortColumns) {
        if (name == column.name)
            return column.key;
        known << column.name;
    }
    return Error::make(ErrorCode::BadRequest,
                       u"'%1' is no sort key; use one of %2"_s.arg(name.left(50),
                                                                   known.join(u", "_s)),
                       u"sort"_s);
}

// The user's text as a LIKE pattern that matches it literally.
QString likeLiteral(const QString &text)
{
    QString escaped = text;
    escaped.replace(u"\\"_s, u"\\\\"_s).replace(u"%"_s, u"\\%"_s).replace(u"_"_s, u"\\_"_s);
    return escaped;
}

} // namespace

Result<JobListQuery> JobListQuery::fromUrlQuery(const QUrlQuery &url)
{
    JobListQuery query;
    Result<QList<JobState>> states =
        parseStates(url.queryItemValue(u"state"_s, QUrl::FullyDecoded));
    if (!states)
        return states.error();
    query.states = *states;
    query.text = url.queryItemValue(u"name"_s, QUrl::FullyDecoded).trimmed();
    if (query.text.size() > MaxTextChars) {
        return Error::make(ErrorCode::BadRequest,
                           u"the name filter is %1 characters long; at most %2 are read"_s
                               .arg(query.text.size())
                               .arg(MaxTextChars),
                           u"name"_s);
    }
    if (url.hasQueryItem(u"sort"_s)) {
        Result<SortKey> sort = parseSort(url.queryItemValue(u"sort"_s, QUrl::FullyDecoded));
        if (!sort)
            return sort.error();
        query.sort = *sort;
        // A name or a state reads naturally from A; times and priorities from the top.
        query.descending = query.sort != SortKey::Name && query.sort != SortKey::State;
    }
    if (url.hasQueryItem(u"order"_s)) {
        const QString order = url.queryItemValue(u"order"_s, QUrl::FullyDecoded);
        if (order != "asc"_L1 && order != "desc"_L1) {
            return Error::make(ErrorCode::BadRequest,
                               u"order must be asc or desc, not '%1'"_s.arg(order.left(50)),
                               u"order"_s);
        }
        query.descending = order == "desc"_L1;
    }
    Result<qint64> limit = RequestReader::parseInteger(url.queryItemValue(u"limit"_s), u"limit"_s,
                                                       query.limit);
    if (!limit)
        return limit.error();
    Result<qint64> offset =
        RequestReader::parseInteger(url.queryItemValue(u"offset"_s), u"offset"_s, 0);
    if (!offset)
        return offset.error();
    query.limit = int(std::clamp<qint64>(*limit, 1, 1000));
    query.offset = int(std::clamp<qint64>(*offset, 0, INT_MAX));
    return query;
}

QString JobListQuery::whereSql() const
{
    QString sql;
    if (!states.isEmpty()) {
        QStringList marks(states.size(), u"?"_s);
        sql += u" AND state IN ("_s + marks.join(u", "_s) + u')';
    }
    if (!text.isEmpty())
        sql += u" AND (LOWER(name) LIKE ? ESCAPE '\\' OR uuid LIKE ? ESCAPE '\\')"_s;
    return sql;
}

QVariantList JobListQuery::whereValues() const
{
    QVariantList values;
    for (const JobState state : states)
        values << stateName(state);
    if (!text.isEmpty()) {
        const QString literal = likeLiteral(text.toLower());
        values << QString(u'%' + literal + u'%') << QString(literal + u'%');
    }
    return values;
}

QString JobListQuery::orderSql() const
{
    const auto column = std::find_if(std::begin(SortColumns), std::end(SortColumns),
                                     [this](const SortColumn &c) { return c.key == sort; });
    const QLatin1StringView direction = descending ? " DESC"_L1 : " ASC"_L1;
    QString sql = u" ORDER BY "_s + column->column + direction;
    if (sort != SortKey::Submitted)
        sql += u", id"_s + direction;
    return sql;
}

} // namespace ddl::server
