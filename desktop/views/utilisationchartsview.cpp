#include "utilisationchartsview.h"

#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static constexpr double MiB = 1024.0 * 1024.0;

// The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is >= value: an
// axis end whose ticks read well.
static double niceCeiling(double value)
{
    if (!(value > 0))
        return 1;
    const double power = std::pow(10.0, std::floor(std::log10(value)));
    for (double factor : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
        if (factor * power >= value * (1 - 1e-9))
            return factor * power;
    }
    return 10 * power;
}

UtilisationChartsView::UtilisationChartsView(QWidget *parent)
    : QWidget(parent)
    , m_status(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_noGpu(new QLabel(this))
    , m_charts(new QWidget(this))
{
    m_status->setObjectName(u"utilisationStatus"_s);
    m_status->setWordWrap(true);
    m_status->hide();
    m_empty->setObjectName(u"utilisationEmpty"_s);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_noGpu->setObjectName(u"utilisationNoGpu"_s);
    m_noGpu->setWordWrap(true);
    m_noGpu->hide();
    m_parts[int(Chart::Cpu)] = makeChart(tr("CPU"), tr("% of one core"), u"chartCpu"_s);
    m_parts[int(Chart::Memory)] = makeChart(tr("Memory"), tr("MiB"), u"chartMemory"_s);
    m_parts[int(Chart::GpuUtilisation)] =
        makeChart(tr("GPU utilisation"), tr("%"), u"chartGpuUtilisation"_s);
    m_parts[int(Chart::GpuMemory)] = makeChart(tr("GPU memory"), tr("MiB"), u"chartGpuMemory"_s);
    auto *grid = new QGridLayout(m_charts);
    grid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < 4; ++i)
        grid->addWidget(m_parts[i].view, i / 2, i % 2);
    m_charts->hide();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_empty, 1);
    layout->addWidget(m_charts, 1);
    layout->addWidget(m_noGpu);
}

UtilisationChartsView::ChartParts UtilisationChartsView::makeChart(const QString &title,
                                                                   const QString &unit,
                                                                   const QString &objectName)
{
    ChartParts parts;
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    parts.x = new QValueAxis(chart);
    parts.x->setLabelFormat(u"%.0f"_s);
    parts.y = new QValueAxis(chart);
    parts.y->setTitleText(unit);
    parts.y->setLabelFormat(u"%.0f"_s);
    chart->addAxis(parts.x, Qt::AlignBottom);
    chart->addAxis(parts.y, Qt::AlignLeft);
    parts.view = new QChartView(chart, this);
    parts.view->setObjectName(objectName);
    parts.view->setRenderHint(QPainter::Antialiasing);
    parts.view->setMinimumSize(280, 200);
    return parts;
}

void UtilisationChartsView::setStatus(const QString &text)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void UtilisationChartsView::updateChart(ChartParts &chart,
                                        const QHash<QString, QList<QPointF>> &lines,
                                        double floorY,
                                        double spanX,
                                        const QString &unitX)
{
    QChart *qchart = chart.view->chart();
    for (auto it = chart.series.begin(); it != chart.series.end();) {
        if (lines.contains(it.key())) {
            ++it;
            continue;
        }
        qchart->removeSeries(it.value());
        delete it.value();
        it = chart.series.erase(it);
    }
    double maxY = floorY;
    QStringList names = lines.keys();
    names.sort();
    for (const QString &name : std::as_const(names)) {
        QLineSeries *series = chart.series.value(name);
        if (!series) {
            series = new QLineSeries(qchart);
            series->setName(name);
            qchart->addSeries(series);
            series->attachAxis(chart.x);
            series->attachAxis(chart.y);
            chart.series.insert(name, series);
        }
        const QList<QPointF> &points = lines.value(name);
        // One replace per refresh: a single repaint, not one per point.
        series->replace(points);
        for (const QPointF &point : points)
            maxY = std::max(maxY, point.y());
    }
    chart.x->setRange(0, niceCeiling(spanX));
    chart.x->setTitleText(unitX);
    chart.y->setRange(0, niceCeiling(maxY * 1.1)); // room above the highest point
    qchart->legend()->setVisible(chart.series.size() > 1);
}

void UtilisationChartsView::setLines(const QList<UtilisationLine> &lines,
                                     const QString &emptyText,
                                     const QString &noGpuText)
{
    qint64 first = std::numeric_limits<qint64>::max();
    qint64 last = 0;
    for (const UtilisationLine &line : lines) {
        for (const UtilisationSample &sample : line.samples) {
            first = std::min(first, sample.atMs);
            last = std::max(last, sample.atMs);
        }
    }
    // Time from the first sample, in a unit that keeps the numbers short.
    const double spanSeconds = last > first ? double(last - first) / 1000 : 1;
    const double divisor = spanSeconds <= 600 ? 1 : spanSeconds <= 36000 ? 60 : 3600;
    const QString unit = divisor == 1 ? tr("seconds") : divisor == 60 ? tr("minutes") : tr("hours");
    QHash<QString, QList<QPointF>> cpu, memory, gpuUse, gpuMemory;
    double gpuMemoryTotal = 0;
    for (const UtilisationLine &line : lines) {
        if (line.samples.isEmpty())
            continue;
        QList<QPointF> &cpuPoints = cpu[line.label];
        QList<QPointF> &memoryPoints = memory[line.label];
        for (const UtilisationSample &sample : line.samples) {
            const double x = double(sample.atMs - first) / 1000 / divisor;
            cpuPoints.append({x, sample.cpuPercent});
            memoryPoints.append({x, double(sample.memoryBytes) / MiB});
            for (const GpuReading &gpu : sample.gpus) {
                const QString name = tr("%1 GPU %2").arg(line.label).arg(gpu.index);
                gpuUse[name].append({x, gpu.utilisationPercent});
                gpuMemory[name].append({x, double(gpu.memoryUsedMb)});
                gpuMemoryTotal = std::max(gpuMemoryTotal, double(gpu.memoryTotalMb));
            }
        }
    }
    const bool any = !cpu.isEmpty();
    m_empty->setText(any ? QString() : emptyText);
    m_empty->setVisible(!any);
    m_charts->setVisible(any);
    if (!any) {
        m_noGpu->hide();
        return;
    }
    const double spanX = spanSeconds / divisor;
    updateChart(m_parts[int(Chart::Cpu)], cpu, 100, spanX, unit);
    updateChart(m_parts[int(Chart::Memory)], memory, 1, spanX, unit);
    const bool gpus = !gpuUse.isEmpty();
    // GPU memory is drawn against the card's size, so that "full" is visible.
    updateChart(m_parts[int(Chart::GpuUtilisation)], gpuUse, 100, spanX, unit);
    updateChart(m_parts[int(Chart::GpuMemory)],
                gpuMemory,
                std::max(1.0, gpuMemoryTotal / 1.1),
                spanX,
                unit);
    m_parts[int(Chart::GpuUtilisation)].view->setVisible(gpus);
    m_parts[int(Chart::GpuMemory)].view->setVisible(gpus);
    m_noGpu->setText(gpus ? QString() : noGpuText);
    m_noGpu->setVisible(!gpus);
}

int UtilisationChartsView::seriesCount(Chart chart) const
{
    return int(m_parts[int(chart)].series.size());
}

int UtilisationChartsView::pointCount(Chart chart) const
{
    int points = 0;
    for (const QLineSeries *series : m_parts[int(chart)].series)
        points += int(series->count());
    return points;
}

bool UtilisationChartsView::isChartShown(Chart chart) const
{
    return m_charts->isVisibleTo(this) && m_parts[int(chart)].view->isVisibleTo(this);
}

QString UtilisationChartsView::emptyText() const
{
    return m_empty->isVisibleTo(this) ? m_empty->text() : QString();
}

QString UtilisationChartsView::noGpuText() const
{
    return m_noGpu->isVisibleTo(this) ? m_noGpu->text() : QString();
}

} // namespace ddl::desktop
