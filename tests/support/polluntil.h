#pragma once

#include <QString>

#include <functional>

// What pollUntil saw: whether the state came, and if not, a message that says what was awaited.
struct PollResult
{
    bool reached = false;
    QString message;

    explicit operator bool() const { return reached; }
};

// Waits until done() holds, asking every stepMs and running the event loop in between (so that
// in-process servers and QProcess signals go on), for at most timeoutMs. The QTRY_ macros do the
// same but can only fail the test where they stand; this returns, for helpers and for messages
// that say what state was awaited: QVERIFY2(polled, qPrintable(polled.message)).
PollResult pollUntil(const std::function<bool()> &done,
                     int timeoutMs,
                     const QString &what = {},
                     int stepMs = 50);
