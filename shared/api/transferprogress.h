#pragma once

#include <QElapsedTimer>
#include <QtGlobal>

namespace ddl {

// Bytes moved so far, with a rate and an ETA derived from the time since the transfer began.
struct TransferProgress
{
    qint64 done = 0;
    qint64 total = 0;
    double bytesPerSecond = 0;
    double etaSeconds = -1;
};

// Keeps the clock of one transfer and turns byte counts into TransferProgress.
class ProgressClock
{
public:
    void start(qint64 alreadyDone)
    {
        m_timer.start();
        m_startDone = alreadyDone;
    }
    bool isStarted() const { return m_timer.isValid(); }
    TransferProgress at(qint64 done, qint64 total) const
    {
        TransferProgress progress{done, total, 0, -1};
        const double seconds = m_timer.isValid() ? m_timer.nsecsElapsed() / 1e9 : 0;
        if (seconds > 0.05) {
            progress.bytesPerSecond = double(done - m_startDone) / seconds;
            if (progress.bytesPerSecond > 0)
                progress.etaSeconds = double(total - done) / progress.bytesPerSecond;
        }
        return progress;
    }

private:
    QElapsedTimer m_timer;
    qint64 m_startDone = 0;
};

} // namespace ddl
