#include "metricstore.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static constexpr QByteArrayView Marker = "DDL_METRIC";
// A longer line is not a metric line but a runaway one; it is not kept whole.
static constexpr qsizetype MaxLine = 64 * 1024;

MetricStore::MetricStore(QObject *parent)
    : QObject(parent)
{}

void MetricStore::clear()
{
    m_partial.clear();
    m_series.clear();
    m_lines = 0;
}

QMap<QString, double> MetricStore::parseLine(QByteArrayView line)
{
    const qsizetype at = line.indexOf(Marker);
    if (at < 0)
        return {};
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(line.sliced(at + Marker.size()).trimmed().toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return {};
    QMap<QString, double> values;
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.value().isDouble())
            values.insert(it.key(), it.value().toDouble());
    }
    return values;
}

void MetricStore::feed(QByteArrayView bytes)
{
    QStringList newNames;
    bool added = false;
    qsizetype begin = 0;
    while (begin < bytes.size()) {
        const qsizetype end = bytes.indexOf('\n', begin);
        if (end < 0) {
            if (m_partial.size() < MaxLine)
                m_partial.append(bytes.sliced(begin).toByteArray());
            break;
        }
        QByteArrayView line = bytes.sliced(begin, end - begin);
        QByteArray joined;
        if (!m_partial.isEmpty()) {
            joined = m_partial + line.toByteArray();
            m_partial.clear();
            line = joined;
        }
        begin = end + 1;
        QMap<QString, double> values = parseLine(line);
        if (values.isEmpty())
            continue;
        const double x = values.contains(u"step"_s) ? values.take(u"step"_s) : double(m_lines);
        ++m_lines;
        for (auto it = values.cbegin(); it != values.cend(); ++it) {
            if (!m_series.contains(it.key()))
                newNames.append(it.key());
            m_series[it.key()].append(QPointF(x, it.value()));
            added = true;
        }
    }
    if (added)
        emit pointsAdded(newNames);
}

} // namespace ddl::desktop
