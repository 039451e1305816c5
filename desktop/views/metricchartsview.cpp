#include "metricchartsview.h"

#include "models/metricstore.h"

#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

MetricChartsView::MetricChartsView(QWidget *parent)
    : QWidget(parent)
    , m_grid(new QGridLayout)
{
    // Which task's metrics these are, over the charts (a job's tasks each have their own).
    m_taskLabel = new QLabel(this);
    m_taskLabel->setObjectName(u"metricsTask"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_taskLabel);
    layout->addLayout(m_grid, 1);
    m_emptyLabel = new QLabel(tr("No metrics yet. Print lines such as\n"
                                 "DDL_METRIC {\"step\": 10, \"loss\": 0.25}\n"
                                 "from your training code to see them here."), this);
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_grid->addWidget(m_emptyLabel, 0, 0);
}

void MetricChartsView::setTaskLabel(const QString &label)
{
    m_taskLabel->setText(tr("Task: %1").arg(label));
}

QString MetricChartsView::taskLabel() const
{
    return m_taskLabel->text();
}

void MetricChartsView::setStore(MetricStore *store)
{
    m_store = store;
    connect(store, &MetricStore::pointsAdded, this, &MetricChartsView::handlePoints);
    handlePoints(store->names());
}

int MetricChartsView::pointCount(const QString &name) const
{
    const auto it = m_charts.find(name);
    return it == m_charts.end() ? 0 : int(it->series->count());
}

void MetricChartsView::addChart(const QString &name)
{
    Chart chart;
    auto *qchart = new QChart;
    qchart->setTitle(name);
    qchart->legend()->hide();
    chart.series = new QLineSeries(qchart);
    chart.series->setName(name);
    qchart->addSeries(chart.series);
    chart.x = new QValueAxis(qchart);
    chart.x->setTitleText(tr("step"));
    chart.y = new QValueAxis(qchart);
    qchart->addAxis(chart.x, Qt::AlignBottom);
    qchart->addAxis(chart.y, Qt::AlignLeft);
    chart.series->attachAxis(chart.x);
    chart.series->attachAxis(chart.y);
    chart.view = new QChartView(qchart, this);
    chart.view->setObjectName(u"chart_"_s + name);
    chart.view->setRenderHint(QPainter::Antialiasing);
    chart.view->setMinimumSize(280, 200);
    const int index = int(m_charts.size());
    m_grid->addWidget(chart.view, index / 2, index % 2);
    m_charts.insert(name, chart);
    m_emptyLabel->hide();
}

void MetricChartsView::handlePoints(const QStringList &newNames)
{
    for (const QString &name : newNames) {
        if (!m_charts.contains(name))
            addChart(name);
    }
    for (auto it = m_charts.begin(); it != m_charts.end(); ++it) {
        const QList<QPointF> points = m_store->points(it.key());
        Chart &chart = it.value();
        if (points.size() < chart.series->count())
            chart.series->clear(); // the store started over (another task)
        if (points.isEmpty() || points.size() == chart.series->count())
            continue;
        chart.series->append(points.mid(chart.series->count()));
        double minX = points.first().x(), maxX = minX, minY = points.first().y(), maxY = minY;
        for (const QPointF &point : points) {
            minX = std::min(minX, point.x());
            maxX = std::max(maxX, point.x());
            minY = std::min(minY, point.y());
            maxY = std::max(maxY, point.y());
        }
        const double padY = (maxY - minY) * 0.05 + 1e-9;
        chart.x->setRange(minX, std::max(maxX, minX + 1));
        chart.y->setRange(minY - padY, maxY + padY);
    }
}

} // namespace ddl::desktop
