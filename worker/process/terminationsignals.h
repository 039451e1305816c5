#pragma once

#include <QObject>

class QSocketNotifier;

namespace ddl::worker {

// Turns SIGINT and SIGTERM sent to the worker into a Qt signal delivered by the event loop, so
// that the worker can end its tasks' process trees before it exits, and SIGHUP into a request
// to re-read its config (as daemons do). One per process.
class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(QObject *parent = nullptr);
    ~TerminationSignals() override;

signals:
    void terminationRequested(int signalNumber);
    void reloadRequested();

private:
    void handleActivated();

    QSocketNotifier *m_notifier = nullptr;
};

} // namespace ddl::worker
