#pragma once

#include <QByteArrayView>
#include <QMap>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QList>

namespace ddl::desktop {

// The metric series of one task, from its `DDL_METRIC {"step": 10, "loss": 0.3}` log lines:
// one series per numeric key, x is "step" (or the line's number among metric lines).
class MetricStore : public QObject
{
    Q_OBJECT
public:
    explicit MetricStore(QObject *parent = nullptr);

    // Feeds log bytes in order; partial lines wait for the rest.
    void feed(QByteArrayView bytes);
    void clear();

    QStringList names() const { return m_series.keys(); }
    QList<QPointF> points(const QString &name) const { return m_series.value(name); }
    int lineCount() const { return m_lines; }

    // The values of one line, or an empty map when it is not a metric line.
    static QMap<QString, double> parseLine(QByteArrayView line);

signals:
    // Points were added; newNames are series seen for the first time.
    void pointsAdded(const QStringList &newNames);

private:
    QByteArray m_partial;
    QMap<QString, QList<QPointF>> m_series;
    int m_lines = 0;
};

} // namespace ddl::desktop
