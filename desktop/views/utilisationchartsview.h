#pragma once

#include "wire/utilisationsample.h"

#include <QHash>
#include <QWidget>

class QChartView;
class QGridLayout;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace ddl::desktop {

// One line of the utilisation charts: a task ("worker #0") or a worker's machine.
struct UtilisationLine
{
    QString label;
    QList<UtilisationSample> samples; // oldest first
};

// Four line charts over time: CPU (percent of one core), resident memory, GPU utilisation and
// GPU memory, one line per task (and per GPU of it). Time runs from the first sample shown, in
// seconds, minutes or hours as the span needs. Lines are updated in place as new samples
// come, so a refresh does not rebuild the charts. Without samples it says why (emptyText); with
// samples but no GPU readings, the GPU charts give way to noGpuText.
class UtilisationChartsView : public QWidget
{
    Q_OBJECT
public:
    enum class Chart { Cpu, Memory, GpuUtilisation, GpuMemory };

    explicit UtilisationChartsView(QWidget *parent = nullptr);

    void setLines(const QList<UtilisationLine> &lines,
                  const QString &emptyText,
                  const QString &noGpuText);
    // A text over the charts (an error of the last refresh); empty: none.
    void setStatus(const QString &text);

    // For tests and screenshots: the lines of a chart and their points, what is said instead.
    int seriesCount(Chart chart) const;
    int pointCount(Chart chart) const;
    bool isChartShown(Chart chart) const;
    QString emptyText() const;
    QString noGpuText() const;

private:
    struct ChartParts
    {
        QChartView *view = nullptr;
        QValueAxis *x = nullptr;
        QValueAxis *y = nullptr;
        QHash<QString, QLineSeries *> series; // by line name
    };
    ChartParts makeChart(const QString &title, const QString &unit, const QString &objectName);
    // Puts the points of each line (by name) into the chart; the y axis reaches at least floorY.
    void updateChart(ChartParts &chart,
                     const QHash<QString, QList<QPointF>> &lines,
                     double floorY,
                     double spanX,
                     const QString &unitX);

    QLabel *m_status;
    QLabel *m_empty;
    QLabel *m_noGpu;
    QWidget *m_charts;
    ChartParts m_parts[4];
};

} // namespace ddl::desktop
