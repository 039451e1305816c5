#pragma once

#include "core/result.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace ddl::worker {

// The hours the owner lends the machine (--available "Mon-Fri 19:00-07:00, Sat-Sun"): windows
// separated by commas, each with optional days (Mon, Mon-Fri, Fri-Mon) and an optional time
// range (HH:MM-HH:MM, end 24:00 allowed). A window whose end is before its start crosses
// midnight and belongs to the day it starts on: "Fri 19:00-07:00" lasts until Saturday 07:00.
class AvailabilityWindows
{
public:
    // The form shown with every parse error.
    static constexpr char Form[] = "DAYS HH:MM-HH:MM, ... (e.g. \"Mon-Fri 19:00-07:00, Sat-Sun\")";

    // Refuses text that is not of Form, saying which window is wrong and why.
    static Result<AvailabilityWindows> parse(const QString &text);

    // No windows: the machine is always available.
    bool isEmpty() const { return m_windows.isEmpty(); }
    // Whether the local time `at` lies inside a window.
    bool contains(const QDateTime &at) const;
    QString text() const { return m_text; }

private:
    struct Window
    {
        quint8 days = 0;  // bit d-1 for QDate::dayOfWeek() d (1: Monday ... 7: Sunday)
        int startMin = 0; // minutes after midnight
        int endMin = 24 * 60;
    };
    static bool onDay(const Window &window, int dayOfWeek);

    QList<Window> m_windows;
    QString m_text;
};

} // namespace ddl::worker
