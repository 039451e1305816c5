#pragma once

#include "wire/jobmessage.h"

#include <QDateTime>
#include <QList>
#include <QWidget>

namespace ddl::desktop {

// The job's life drawn on a time axis: waiting and running as coloured bars (one running bar
// per attempt, so retries show), the end state as a mark, with the times under the axis and a
// tooltip per segment. Built from the job object the server sends (created/started/finished
// of the job, started/finished/state/attempt of every task); it draws with the palette, so it
// follows a dark theme.
class StateTimeline : public QWidget
{
    Q_OBJECT
public:
    struct Segment
    {
        QString state; // WAITING, RUNNING, or the end state (SUCCEEDED, FAILED, STOPPED)
        QDateTime start;
        QDateTime end;   // equal to start for the end state's mark
        int attempt = 0; // the attempt a RUNNING segment belongs to (1-based), else 0
        QString outcome; // how that attempt ended (FAILED for one that was retried); "" if open
        bool ongoing = false; // still going on: end is the time of the last update

        friend bool operator==(const Segment &, const Segment &) = default;
    };

    explicit StateTimeline(QWidget *parent = nullptr);

    // now: where a segment that is still going on ends for now.
    void setJob(const JobMessage &job, const QDateTime &now = QDateTime::currentDateTimeUtc());
    QList<Segment> segments() const { return m_segments; }
    // The segments of a job, oldest first.
    static QList<Segment> segmentsOf(const JobMessage &job, const QDateTime &now);

    // Where segment i is drawn (the end state: its mark), in widget coordinates.
    QRect segmentRect(int i) const;
    // The text a segment's tooltip shows.
    QString describe(const Segment &segment) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    QRect barArea() const;
    int xOf(const QDateTime &time) const;
    QColor colorOf(const QString &state) const;

    QList<Segment> m_segments;
    QDateTime m_begin;
    QDateTime m_end;
};

} // namespace ddl::desktop
