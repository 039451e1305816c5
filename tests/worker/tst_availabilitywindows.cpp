// The owner's --available hours: what the text means for given local times (Mondays to Sundays,
// windows that cross midnight, whole days) and the errors of text that is not of the form.
#include "owner/availabilitywindows.h"
#include "owner/ownerpolicy.h"

#include <QTest>

using namespace Qt::StringLiterals;
using ddl::worker::AvailabilityWindows;

namespace {

// 2026-11-23 is a Monday: day 1 of that week is the 23rd, day 7 (Sunday) the 29th.
QDateTime at(int dayOfWeek, int hour, int minute)
{
    return QDateTime(QDate(2026, 11, 22 + dayOfWeek), QTime(hour, minute));
}

} // namespace

class TestAvailabilityWindows : public QObject
{
    Q_OBJECT

private slots:
    void nightsOfWorkdaysCrossMidnight_data();
    void nightsOfWorkdaysCrossMidnight();
    void severalWindowsAndWholeDays();
    void emptyTextIsAnyTime();
    void badTextNamesTheWindowAndShowsTheForm_data();
    void badTextNamesTheWindowAndShowsTheForm();
    void taskProcessesAreNotTheOwners();
};

void TestAvailabilityWindows::nightsOfWorkdaysCrossMidnight_data()
{
    QTest::addColumn<QDateTime>("time");
    QTest::addColumn<bool>("inside");
    QTest::newRow("Monday 18:59") << at(1, 18, 59) << false;
    QTest::newRow("Monday 19:00") << at(1, 19, 0) << true;
    QTest::newRow("Tuesday 03:00 (Monday's night)") << at(2, 3, 0) << true;
    QTest::newRow("Tuesday 06:59") << at(2, 6, 59) << true;
    QTest::newRow("Tuesday 07:00") << at(2, 7, 0) << false;
    QTest::newRow("Tuesday noon") << at(2, 12, 0) << false;
    QTest::newRow("Saturday 03:00 (Friday's night)") << at(6, 3, 0) << true;
    QTest::newRow("Saturday 20:00") << at(6, 20, 0) << false;
    QTest::newRow("Monday 03:00 (Sunday has no window)") << at(1, 3, 0) << false;
}

void TestAvailabilityWindows::nightsOfWorkdaysCrossMidnight()
{
    QFETCH(QDateTime, time);
    QFETCH(bool, inside);
    const auto windows = AvailabilityWindows::parse(u"Mon-Fri 19:00-07:00"_s);
    QVERIFY2(windows, qPrintable(windows ? QString() : windows.error().message));
    QCOMPARE(windows->contains(time), inside);
}

void TestAvailabilityWindows::severalWindowsAndWholeDays()
{
    const auto windows = AvailabilityWindows::parse(u" mon-fri 19:00-07:00 , Sat-Sun, 12:00-13:00"_s);
    QVERIFY2(windows, qPrintable(windows ? QString() : windows.error().message));
    QVERIFY(windows->contains(at(6, 10, 0)));  // all Saturday
    QVERIFY(windows->contains(at(7, 23, 59))); // all Sunday
    QVERIFY(windows->contains(at(3, 12, 30))); // every day's lunch
    QVERIFY(!windows->contains(at(3, 13, 0)));
    QVERIFY(!windows->contains(at(3, 9, 0)));

    const auto weekend = AvailabilityWindows::parse(u"Fri-Mon 00:00-24:00"_s);
    QVERIFY(weekend);
    QVERIFY(weekend->contains(at(5, 0, 0)));
    QVERIFY(weekend->contains(at(1, 23, 59)));
    QVERIFY(!weekend->contains(at(2, 0, 0)));
    QVERIFY(!weekend->contains(at(4, 12, 0)));
}

void TestAvailabilityWindows::emptyTextIsAnyTime()
{
    const auto windows = AvailabilityWindows::parse(u"  "_s);
    QVERIFY(windows);
    QVERIFY(windows->isEmpty());
}

void TestAvailabilityWindows::badTextNamesTheWindowAndShowsTheForm_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("says");
    QTest::newRow("no day") << u"Mon-Fry 19:00-07:00"_s << u"names no day"_s;
    QTest::newRow("hour 25") << u"Mon 19:00-25:00"_s << u"no HH:MM"_s;
    QTest::newRow("minute 60") << u"Mon 19:60-20:00"_s << u"no HH:MM"_s;
    QTest::newRow("24:00 start") << u"24:00-01:00"_s << u"no HH:MM"_s;
    QTest::newRow("empty window") << u"Mon 19:00-07:00,,Sat"_s << u"not of the form"_s;
    QTest::newRow("no range") << u"evenings"_s << u"not of the form"_s;
    QTest::newRow("zero length") << u"Mon 08:00-08:00"_s << u"starts when it ends"_s;
}

void TestAvailabilityWindows::badTextNamesTheWindowAndShowsTheForm()
{
    QFETCH(QString, text);
    QFETCH(QString, says);
    const auto windows = AvailabilityWindows::parse(text);
    QVERIFY(!windows);
    const QString message = windows.error().message;
    QVERIFY2(message.contains(says), qPrintable(message));
    QVERIFY2(message.contains(u"Mon-Fri 19:00-07:00, Sat-Sun"_s), qPrintable(message));
}

void TestAvailabilityWindows::taskProcessesAreNotTheOwners()
{
    using ddl::worker::processtree::ProcessEntry;
    // Task 100 leads group 100; 101 is its child, 102 a grandchild in a group of its own; 200 is
    // the owner's program.
    const QList<ProcessEntry> table{{100, 'S', 1, 100},
                                    {101, 'R', 100, 100},
                                    {102, 'R', 101, 102},
                                    {200, 'R', 1, 200}};
    QCOMPARE(ddl::worker::foreignProcesses({101, 102, 200}, {100}, table), QList<qint64>{200});
    QCOMPARE(ddl::worker::foreignProcesses({101, 200}, {}, table), (QList<qint64>{101, 200}));
    // A process gone from the table by the time it was read is not the worker's.
    QCOMPARE(ddl::worker::foreignProcesses({300}, {100}, table), QList<qint64>{300});
}

QTEST_GUILESS_MAIN(TestAvailabilityWindows)
#include "tst_availabilitywindows.moc"
