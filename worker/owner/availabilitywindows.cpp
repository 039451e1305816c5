#include "availabilitywindows.h"

#include <QRegularExpression>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

// 1 for Monday ... 7 for Sunday, 0 for no day name.
int dayNumber(QStringView name)
{
    static const QStringList days{u"mon"_s, u"tue"_s, u"wed"_s, u"thu"_s,
                                  u"fri"_s, u"sat"_s, u"sun"_s};
    return int(days.indexOf(name.toString().toLower())) + 1;
}

// Minutes after midnight of HH:MM (24:00 only as an end), or -1.
int minutesOf(const QString &hours, const QString &minutes, bool isEnd)
{
    const int h = hours.toInt();
    const int m = minutes.toInt();
    if (m > 59 || h > 24 || (h == 24 && (m != 0 || !isEnd)))
        return -1;
    return h * 60 + m;
}

} // namespace

Result<AvailabilityWindows> AvailabilityWindows::parse(const QString &text)
{
    static const QRegularExpression windowPattern(QRegularExpression::anchoredPattern(
        u"(?:([A-Za-z]{3})(?:-([A-Za-z]{3}))?)?\\s*(?:(\\d{1,2}):(\\d{2})-(\\d{1,2}):(\\d{2}))?"_s));
    AvailabilityWindows windows;
    windows.m_text = text.trimmed();
    if (windows.m_text.isEmpty())
        return windows;
    const auto refuse = [](const QString &part, const QString &why) {
        return Error::make(ErrorCode::InvalidConfig,
                           u"the window '%1' %2; write %3"_s.arg(part, why, QLatin1StringView(Form)));
    };
    for (const QString &raw : windows.m_text.split(u',')) {
        const QString part = raw.trimmed();
        const QRegularExpressionMatch match = windowPattern.match(part);
        if (part.isEmpty() || !match.hasMatch())
            return refuse(part, u"is not of the form"_s);
        Window window;
        if (match.hasCaptured(1)) {
            const int first = dayNumber(match.capturedView(1));
            const int last = match.hasCaptured(2) ? dayNumber(match.capturedView(2)) : first;
            if (first == 0 || last == 0)
                return refuse(part, u"names no day (Mon, Tue, Wed, Thu, Fri, Sat, Sun)"_s);
            // Fri-Mon wraps over the weekend.
            for (int day = first;; day = day % 7 + 1) {
                window.days |= quint8(1u << (day - 1));
                if (day == last)
                    break;
            }
        } else {
            window.days = 0x7f;
        }
        if (match.hasCaptured(3)) {
            window.startMin = minutesOf(match.captured(3), match.captured(4), false);
            window.endMin = minutesOf(match.captured(5), match.captured(6), true);
            if (window.startMin < 0 || window.endMin < 0)
                return refuse(part, u"has a time that is no HH:MM of a day"_s);
            if (window.startMin == window.endMin)
                return refuse(part, u"starts when it ends (a whole day is 00:00-24:00)"_s);
        }
        windows.m_windows.append(window);
    }
    return windows;
}

bool AvailabilityWindows::onDay(const Window &window, int dayOfWeek)
{
    return window.days & (1u << (dayOfWeek - 1));
}

bool AvailabilityWindows::contains(const QDateTime &at) const
{
    const int day = at.date().dayOfWeek();
    const int yesterday = (day + 5) % 7 + 1;
    const int minute = at.time().hour() * 60 + at.time().minute();
    for (const Window &window : m_windows) {
        const bool crossesMidnight = window.endMin < window.startMin;
        if (!crossesMidnight) {
            if (onDay(window, day) && minute >= window.startMin && minute < window.endMin)
                return true;
            continue;
        }
        // The evening part today, or the morning part of a window that began yesterday.
        if ((onDay(window, day) && minute >= window.startMin)
            || (onDay(window, yesterday) && minute < window.endMin))
            return true;
    }
    return false;
}

} // namespace ddl::worker
