#include "polluntil.h"

#include <QDeadlineTimer>
#include <QTest>

PollResult
pollUntil(const std::function<bool()> &done, int timeoutMs, const QString &what, int stepMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (true) {
        if (done())
            return {true, {}};
        if (deadline.hasExpired())
            break;
        QTest::qWait(stepMs);
    }
    return {false,
            QStringLiteral("waited %1 ms in vain for %2")
                .arg(QString::number(timeoutMs),
                     what.isEmpty() ? QStringLiteral("the awaited state") : what)};
}
