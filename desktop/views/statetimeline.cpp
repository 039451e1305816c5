#include "statetimeline.h"

#include "models/jobrecord.h"
#include "wire/jobmessage.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMap>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

namespace {

constexpr int Margin = 4;
constexpr int BarHeight = 18;
constexpr int LabelGap = 4;

// One attempt as its tasks tell it: the first start, the last end, how it went.
struct Attempt
{
    QDateTime start;
    QDateTime end;
    bool allEnded = true;
    bool failed = false;
    bool stopped = false;
};

} // namespace

StateTimeline::StateTimeline(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(u"stateTimeline"_s);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
}

QList<StateTimeline::Segment> StateTimeline::segmentsOf(const JobMessage &job,
                                                        const QDateTime &now)
{
    const QString state = stateName(job.state);
    const bool final = isFinal(job.state);
    const QDateTime created = job.createdAt;
    const QDateTime finished = job.finishedAt;
    // Where anything still open ends: the job's end, or now.
    const QDateTime until = final && finished.isValid() ? finished : now;

    QMap<int, Attempt> attempts;
    for (const TaskMessage &task : job.tasks) {
        Attempt &attempt = attempts[std::max(1, task.attempt)];
        const QDateTime started = task.startedAt;
        const QDateTime ended = task.finishedAt;
        if (started.isValid() && (!attempt.start.isValid() || started < attempt.start))
            attempt.start = started;
        if (ended.isValid())
            attempt.end = std::max(attempt.end.isValid() ? attempt.end : ended, ended);
        else
            attempt.allEnded = false;
        attempt.failed = attempt.failed || task.state == JobState::Failed;
        attempt.stopped = attempt.stopped || task.state == JobState::Stopped;
    }
    // A job listed without its tasks: its own start stands for its current attempt.
    const int current = std::max(1, job.attempt);
    const QDateTime jobStarted = job.startedAt;
    if (attempts.isEmpty() && jobStarted.isValid()) {
        Attempt &attempt = attempts[current];
        attempt.start = jobStarted;
        attempt.allEnded = final;
        attempt.end = final ? finished : QDateTime();
        attempt.failed = job.state == JobState::Failed;
        attempt.stopped = job.state == JobState::Stopped;
    }

    QList<Segment> segments;
    QDateTime cursor = created;
    int lastStarted = 0;
    for (auto it = attempts.cbegin(); it != attempts.cend(); ++it) {
        const Attempt &attempt = it.value();
        if (!attempt.start.isValid())
            continue;
        if (cursor.isValid() && attempt.start > cursor)
            segments.append({stateName(JobState::Waiting), cursor, attempt.start, 0, {}, false});
        Segment running{stateName(JobState::Running), attempt.start, until, it.key(), {}, !final};
        if (attempt.allEnded && attempt.end.isValid()) {
            running.end = std::max(attempt.end, attempt.start);
            running.ongoing = false;
            running.outcome = attempt.failed    ? stateName(JobState::Failed)
                              : attempt.stopped ? stateName(JobState::Stopped)
                                                : stateName(JobState::Succeeded);
        } else if (final) {
            running.outcome = state;
        }
        segments.append(running);
        cursor = running.end;
        lastStarted = it.key();
    }
    // Waiting for an attempt that has not started (the first one, or a retry): up to now, or to
    // the end of a job stopped meanwhile.
    if (cursor.isValid() && (lastStarted == 0 || current > lastStarted) &&
        (!final || state == stateName(JobState::Stopped)) && until > cursor)
        segments.append({stateName(JobState::Waiting), cursor, until, 0, {}, !final});
    if (final && until.isValid())
        segments.append({state, until, until, 0, state, false});
    return segments;
}

void StateTimeline::setJob(const JobMessage &job, const QDateTime &now)
{
    const QList<Segment> segments = segmentsOf(job, now);
    if (segments == m_segments)
        return;
    m_segments = segments;
    m_begin = m_segments.isEmpty() ? QDateTime() : m_segments.first().start;
    m_end = m_begin;
    for (const Segment &segment : std::as_const(m_segments))
        m_end = std::max(m_end, segment.end);
    update();
}

QSize StateTimeline::sizeHint() const
{
    return {480, minimumSizeHint().height()};
}

QSize StateTimeline::minimumSizeHint() const
{
    return {160, Margin + BarHeight + LabelGap + fontMetrics().height() + Margin};
}

QRect StateTimeline::barArea() const
{
    // Room on the right for the end mark.
    return QRect(Margin, Margin, std::max(1, width() - 2 * Margin - BarHeight / 2), BarHeight);
}

int StateTimeline::xOf(const QDateTime &time) const
{
    const QRect area = barArea();
    const qint64 span = m_begin.msecsTo(m_end);
    if (span <= 0)
        return area.left();
    return area.left() + int(double(m_begin.msecsTo(time)) * area.width() / double(span));
}

QRect StateTimeline::segmentRect(int i) const
{
    if (i < 0 || i >= m_segments.size())
        return {};
    const Segment &segment = m_segments.at(i);
    const QRect area = barArea();
    const int left = xOf(segment.start);
    if (segment.start == segment.end && isFinalState(segment.state))
        return QRect(left - BarHeight / 2, area.top(), BarHeight, BarHeight);
    return QRect(left, area.top(), std::max(2, xOf(segment.end) - left), BarHeight);
}

QColor StateTimeline::colorOf(const QString &state) const
{
    const QColor color = JobStateStyle::color(state);
    // On a dark window the darker state colours would sink: lift them.
    return palette().color(QPalette::Window).lightnessF() < 0.5 ? color.lighter(140) : color;
}

static QString clockText(const QDateTime &time)
{
    return QLocale().toString(time.toLocalTime().time(), u"HH:mm:ss"_s);
}

QString StateTimeline::describe(const Segment &segment) const
{
    const QString when = QLocale().toString(segment.start.toLocalTime(), QLocale::ShortFormat);
    if (isFinalState(segment.state) && segment.start == segment.end)
        return tr("%1 at %2").arg(JobStateStyle::displayName(segment.state), when);
    QString name = JobStateStyle::displayName(segment.state);
    if (segment.state == stateName(JobState::Running))
        name = tr("Running, attempt %1").arg(segment.attempt);
    const QString duration = JobStateStyle::formatDuration(segment.start.secsTo(segment.end));
    if (segment.ongoing)
        return tr("%1 since %2 (%3 so far)").arg(name, when, duration);
    QString text = tr("%1 from %2 to %3 (%4)").arg(name, when, clockText(segment.end), duration);
    if (segment.state == stateName(JobState::Running) && !segment.outcome.isEmpty())
        text += u'\n' + tr("Ended: %1").arg(JobStateStyle::displayName(segment.outcome));
    return text;
}

void StateTimeline::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRect area = barArea();
    const QPalette &pal = palette();
    // The track: the axis the segments lie on.
    painter.setPen(Qt::NoPen);
    painter.setBrush(pal.color(QPalette::AlternateBase));
    painter.drawRoundedRect(area, 3, 3);
    if (m_segments.isEmpty())
        return;

    int attempts = 0;
    for (const Segment &segment : std::as_const(m_segments))
        attempts = std::max(attempts, segment.attempt);
    const QFontMetrics metrics = fontMetrics();
    for (int i = 0; i < m_segments.size(); ++i) {
        const Segment &segment = m_segments.at(i);
        const QRect rect = segmentRect(i);
        const QColor color = colorOf(segment.state);
        if (isFinalState(segment.state) && segment.start == segment.end) {
            // The end state: a round mark at the end of the axis.
            painter.setPen(QPen(pal.color(QPalette::Window), 2));
            painter.setBrush(color);
            painter.drawEllipse(rect.adjusted(1, 1, -1, -1));
            continue;
        }
        painter.setPen(Qt::NoPen);
        painter.setBrush(color);
        painter.drawRect(rect);
        if (segment.state == stateName(JobState::Running) &&
            segment.outcome == stateName(JobState::Failed) && i + 1 < m_segments.size()) {
            // An attempt that failed and was retried: a cap in the failure colour.
            painter.setBrush(colorOf(stateName(JobState::Failed)));
            painter.drawRect(QRect(rect.right() - 2, rect.top(), 3, rect.height()));
        }
        if (segment.ongoing) {
            // Still going on: the right edge fades into the track.
            QLinearGradient fade(rect.right() - 12, 0, rect.right() + 1, 0);
            fade.setColorAt(0, Qt::transparent);
            fade.setColorAt(1, pal.color(QPalette::AlternateBase));
            painter.setBrush(fade);
            painter.drawRect(QRect(rect.right() - 12, rect.top(), 13, rect.height()));
        }
        // The state's name inside the bar where it fits, in black or white for contrast.
        QString label = JobStateStyle::displayName(segment.state);
        if (segment.state == stateName(JobState::Running) && attempts > 1)
            label = tr("Running #%1").arg(segment.attempt);
        const QString shown = metrics.elidedText(label, Qt::ElideRight, rect.width() - 6);
        if (shown.size() > 2) {
            painter.setPen(color.lightnessF() > 0.6 ? Qt::black : Qt::white);
            painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, shown);
        }
    }

    // Times under the axis: the submission on the left and the end on the right, then the
    // boundaries between segments where they have room.
    painter.setPen(pal.color(QPalette::WindowText));
    const int textTop = area.bottom() + 1 + LabelGap;
    const int gap = metrics.horizontalAdvance(u"  "_s);
    QList<QPair<int, int>> taken; // horizontal ranges already labelled
    const auto place = [&](const QString &text, int x) {
        const int textWidth = metrics.horizontalAdvance(text);
        x = std::clamp(x, 0, std::max(0, width() - textWidth));
        for (const auto &[from, to] : std::as_const(taken)) {
            if (x < to + gap && x + textWidth + gap > from)
                return;
        }
        taken.append({x, x + textWidth});
        painter.drawText(
            QRect(x, textTop, textWidth, metrics.height()), Qt::AlignLeft | Qt::AlignTop, text);
    };
    place(tr("Submitted %1").arg(clockText(m_begin)), 0);
    const Segment &last = m_segments.last();
    const QString endText =
        isFinalState(last.state) && last.start == last.end
            ? QString(JobStateStyle::displayName(last.state) + u' ' + clockText(m_end))
            : clockText(m_end);
    place(endText, width() - metrics.horizontalAdvance(endText));
    for (int i = 1; i < m_segments.size(); ++i) {
        const Segment &segment = m_segments.at(i);
        if (segment.start == m_end || segment.start == m_begin)
            continue;
        const QString text = clockText(segment.start);
        place(text, xOf(segment.start) - metrics.horizontalAdvance(text) / 2);
    }
}

bool StateTimeline::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        // Marks are drawn last, so they are looked up first.
        for (int i = int(m_segments.size()) - 1; i >= 0; --i) {
            if (segmentRect(i).adjusted(-1, -Margin, 1, Margin).contains(help->pos())) {
                QToolTip::showText(help->globalPos(), describe(m_segments.at(i)), this);
                return true;
            }
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

} // namespace ddl::desktop
