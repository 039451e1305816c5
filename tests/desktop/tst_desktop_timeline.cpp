// The job detail view's drawn state timeline: the segments it computes from the server's job
// object (waiting, one running bar per attempt, the end state), and that it paints under the
// offscreen platform, light and dark, without a warning.
#include "models/jobrecord.h"
#include "views/statetimeline.h"

#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QHelpEvent>
#include <QTest>
#include <QToolTip>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static const QDateTime Start = QDateTime::fromString(u"2026-03-01T10:00:00.000Z"_s,
                                                      Qt::ISODateWithMs);

static QJsonValue at(int seconds)
{
    return Start.addSecs(seconds).toString(Qt::ISODateWithMs);
}

static QJsonObject task(int attempt, const QString &state, QJsonValue started, QJsonValue ended)
{
    return {{"attempt"_L1, attempt}, {"state"_L1, state}, {"started_at"_L1, started},
            {"finished_at"_L1, ended}};
}

// The job as the detail view reads it from the server's answer.
static ddl::JobMessage read(const QJsonObject &job)
{
    ddl::Result<ddl::JobMessage> message = ddl::JobMessage::fromJson(job);
    Q_ASSERT(message);
    return *message;
}

// Two tasks; the first attempt fails at 60 s, the retry starts at 70 s and succeeds at 120 s.
static QJsonObject retriedJob()
{
    return {{"state"_L1, u"SUCCEEDED"_s},
            {"attempt"_L1, 2},
            {"created_at"_L1, at(0)},
            {"started_at"_L1, at(5)},
            {"finished_at"_L1, at(120)},
            {"tasks"_L1, QJsonArray{task(1, u"FAILED"_s, at(5), at(60)),
                                   task(1, u"STOPPED"_s, at(6), at(60)),
                                   task(2, u"SUCCEEDED"_s, at(70), at(118)),
                                   task(2, u"SUCCEEDED"_s, at(71), at(120))}}};
}

using States = QList<QString>;

static States statesOf(const QList<StateTimeline::Segment> &segments)
{
    States states;
    for (const StateTimeline::Segment &segment : segments)
        states << segment.state;
    return states;
}

// Paints the widget into an image, failing the test on any warning meanwhile.
static QStringList s_messages;
static QImage paint(StateTimeline &timeline)
{
    s_messages.clear();
    const QtMessageHandler previous = qInstallMessageHandler(
        [](QtMsgType type, const QMessageLogContext &, const QString &message) {
            if (type != QtDebugMsg && type != QtInfoMsg)
                s_messages << message;
        });
    QImage image(timeline.size(), QImage::Format_ARGB32);
    image.fill(timeline.palette().color(QPalette::Window));
    timeline.render(&image);
    qInstallMessageHandler(previous);
    return image;
}

class TestDesktopTimeline : public QObject
{
    Q_OBJECT

private slots:
    void retriedJobSegments();
    void jobsInOtherStates_data();
    void jobsInOtherStates();
    void paintsLightAndDark();
    void tooltipText();
};

void TestDesktopTimeline::retriedJobSegments()
{
    const QList<StateTimeline::Segment> segments =
        StateTimeline::segmentsOf(read(retriedJob()), Start.addSecs(500));
    QCOMPARE(statesOf(segments), (States{u"WAITING"_s, u"RUNNING"_s, u"WAITING"_s,
                                         u"RUNNING"_s, u"SUCCEEDED"_s}));
    // In order, each starting where the one before ended.
    for (qsizetype i = 1; i < segments.size(); ++i)
        QCOMPARE(segments.at(i).start, segments.at(i - 1).end);
    QCOMPARE(segments.at(0).start, Start);
    QCOMPARE(segments.at(1).start, Start.addSecs(5));
    QCOMPARE(segments.at(1).end, Start.addSecs(60));
    QCOMPARE(segments.at(1).attempt, 1);
    QCOMPARE(segments.at(1).outcome, u"FAILED"_s);
    QCOMPARE(segments.at(3).start, Start.addSecs(70));
    QCOMPARE(segments.at(3).end, Start.addSecs(120));
    QCOMPARE(segments.at(3).attempt, 2);
    QCOMPARE(segments.at(3).outcome, u"SUCCEEDED"_s);
    QCOMPARE(segments.at(4).start, segments.at(4).end); // the end state is a mark
    for (const StateTimeline::Segment &segment : segments)
        QVERIFY(!segment.ongoing);

    // The widget lays them out left to right, the mark at the end.
    StateTimeline timeline;
    timeline.resize(600, timeline.sizeHint().height());
    timeline.setJob(read(retriedJob()), Start.addSecs(500));
    QCOMPARE(timeline.segments(), segments);
    for (int i = 1; i < segments.size(); ++i)
        QVERIFY(timeline.segmentRect(i).left() >= timeline.segmentRect(i - 1).left());
    QVERIFY(timeline.segmentRect(1).width() > timeline.segmentRect(0).width());
    QVERIFY(timeline.segmentRect(4).right() <= timeline.width());
}

void TestDesktopTimeline::jobsInOtherStates_data()
{
    QTest::addColumn<QJsonObject>("job");
    QTest::addColumn<States>("states");
    QTest::addColumn<bool>("lastOngoing");

    QTest::newRow("waiting") << QJsonObject{{"state"_L1, u"WAITING"_s}, {"created_at"_L1, at(0)},
                                            {"tasks"_L1, QJsonArray{task(1, u"WAITING"_s, {}, {})}}}
                             << States{u"WAITING"_s} << true;
    QTest::newRow("running")
        << QJsonObject{{"state"_L1, u"RUNNING"_s}, {"created_at"_L1, at(0)},
                       {"started_at"_L1, at(3)},
                       {"tasks"_L1, QJsonArray{task(1, u"RUNNING"_s, at(3), {})}}}
        << States{u"WAITING"_s, u"RUNNING"_s} << true;
    QTest::newRow("waiting for a retry")
        << QJsonObject{{"state"_L1, u"WAITING"_s}, {"attempt"_L1, 2}, {"created_at"_L1, at(0)},
                       {"tasks"_L1, QJsonArray{task(1, u"FAILED"_s, at(2), at(9)),
                                              task(2, u"WAITING"_s, {}, {})}}}
        << States{u"WAITING"_s, u"RUNNING"_s, u"WAITING"_s} << true;
    QTest::newRow("stopped while waiting")
        << QJsonObject{{"state"_L1, u"STOPPED"_s}, {"created_at"_L1, at(0)},
                       {"finished_at"_L1, at(30)},
                       {"tasks"_L1, QJsonArray{task(1, u"STOPPED"_s, {}, at(30))}}}
        << States{u"WAITING"_s, u"STOPPED"_s} << false;
    QTest::newRow("failed")
        << QJsonObject{{"state"_L1, u"FAILED"_s}, {"created_at"_L1, at(0)},
                       {"started_at"_L1, at(1)}, {"finished_at"_L1, at(8)},
                       {"tasks"_L1, QJsonArray{task(1, u"FAILED"_s, at(1), at(8))}}}
        << States{u"WAITING"_s, u"RUNNING"_s, u"FAILED"_s} << false;
    // The job list's objects carry no tasks: the job's own times stand in.
    QTest::newRow("no tasks") << QJsonObject{{"state"_L1, u"SUCCEEDED"_s}, {"created_at"_L1, at(0)},
                                             {"started_at"_L1, at(4)}, {"finished_at"_L1, at(9)}}
                              << States{u"WAITING"_s, u"RUNNING"_s, u"SUCCEEDED"_s} << false;
}

void TestDesktopTimeline::jobsInOtherStates()
{
    QFETCH(QJsonObject, job);
    QFETCH(States, states);
    QFETCH(bool, lastOngoing);
    const QList<StateTimeline::Segment> segments =
        StateTimeline::segmentsOf(read(job), Start.addSecs(40));
    QCOMPARE(statesOf(segments), states);
    QCOMPARE(segments.last().ongoing, lastOngoing);
    if (lastOngoing)
        QCOMPARE(segments.last().end, Start.addSecs(40)); // open segments end now
}

void TestDesktopTimeline::paintsLightAndDark()
{
    StateTimeline timeline;
    timeline.resize(600, timeline.sizeHint().height());
    timeline.setJob(read(retriedJob()), Start.addSecs(500));
    QPalette light = timeline.palette();
    light.setColor(QPalette::Window, Qt::white);
    light.setColor(QPalette::WindowText, Qt::black);
    timeline.setPalette(light);
    QImage image = paint(timeline);
    QVERIFY2(s_messages.isEmpty(), qPrintable(s_messages.join(u'\n')));
    // The bars have their state's colour (probed off the label, at the bar's top left).
    const QPoint running = timeline.segmentRect(1).topLeft() + QPoint(1, 1);
    QCOMPARE(image.pixelColor(running), JobStateStyle::color(u"RUNNING"_s));
    const QPoint waiting = timeline.segmentRect(0).topLeft() + QPoint(1, 1);
    QCOMPARE(image.pixelColor(waiting), JobStateStyle::color(u"WAITING"_s));
    QCOMPARE(image.pixelColor(timeline.segmentRect(4).center()),
             JobStateStyle::color(u"SUCCEEDED"_s));

    // A dark palette: the same bars, lifted to stand out from the dark window.
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::AlternateBase, QColor(0x30, 0x30, 0x30));
    timeline.setPalette(dark);
    image = paint(timeline);
    QVERIFY2(s_messages.isEmpty(), qPrintable(s_messages.join(u'\n')));
    const QColor lifted = image.pixelColor(running);
    QVERIFY(lifted.lightnessF() > JobStateStyle::color(u"RUNNING"_s).lightnessF());
    QCOMPARE(lifted.rgb(), JobStateStyle::color(u"RUNNING"_s).lighter(140).rgb());
}

void TestDesktopTimeline::tooltipText()
{
    StateTimeline timeline;
    timeline.setJob(read(retriedJob()), Start.addSecs(500));
    const QList<StateTimeline::Segment> segments = timeline.segments();
    const QString retried = timeline.describe(segments.at(1));
    QVERIFY2(retried.contains(u"attempt 1"_s) && retried.contains(u"55 s"_s)
                 && retried.contains(u"Failed"_s),
             qPrintable(retried));
    QVERIFY(timeline.describe(segments.at(4)).startsWith(u"Succeeded at"_s));

    // Hovering a bar shows its tooltip.
    timeline.resize(600, timeline.sizeHint().height());
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    const QPoint at = timeline.segmentRect(3).center();
    QHelpEvent help(QEvent::ToolTip, at, timeline.mapToGlobal(at));
    QCoreApplication::sendEvent(&timeline, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), timeline.describe(segments.at(3)));
    QVERIFY(QToolTip::text().contains(u"attempt 2"_s));
}

QTEST_MAIN(TestDesktopTimeline)
#include "tst_desktop_timeline.moc"
