#pragma once

#include <QHash>
#include <QWidget>

class QChartView;
class QGridLayout;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace ddl::desktop {

class MetricStore;

// One line chart per metric of a MetricStore (loss, accuracy, ...), each with its own scale,
// growing as points arrive.
class MetricChartsView : public QWidget
{
    Q_OBJECT
public:
    explicit MetricChartsView(QWidget *parent = nullptr);

    void setStore(MetricStore *store);
    // Names the task whose metrics are shown.
    void setTaskLabel(const QString &label);
    QString taskLabel() const;
    int chartCount() const { return int(m_charts.size()); }
    int pointCount(const QString &name) const;

private:
    struct Chart
    {
        QChartView *view = nullptr;
        QLineSeries *series = nullptr;
        QValueAxis *x = nullptr;
        QValueAxis *y = nullptr;
    };
    void handlePoints(const QStringList &newNames);
    void addChart(const QString &name);

    MetricStore *m_store = nullptr;
    QGridLayout *m_grid;
    QLabel *m_emptyLabel;
    QLabel *m_taskLabel;
    QHash<QString, Chart> m_charts;
};

} // namespace ddl::desktop
