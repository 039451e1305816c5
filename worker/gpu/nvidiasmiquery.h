#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace ddl::worker {

// One kind of nvidia-smi query (its arguments fixed), asked as a QProcess of its own so that the
// worker's event loop never waits for it: a busy driver can take seconds to answer. One query at
// a time; one that takes longer than the timeout is killed and counts as failed. Shared by the
// utilisation poller and the owner's idle check.
class NvidiaSmiQuery : public QObject
{
    Q_OBJECT
public:
    NvidiaSmiQuery(const QString &program, const QStringList &arguments, QObject *parent = nullptr);
    ~NvidiaSmiQuery() override;

    // Starts a query unless one is still running.
    void run();
    bool isRunning() const { return m_process != nullptr; }
    void setTimeout(int ms) { m_timeout.setInterval(ms); }
    int timeout() const { return m_timeout.interval(); }
    QString program() const { return m_program; }

signals:
    // The standard output of a query that ended with exit code 0.
    void answered(const QByteArray &output);
    // Why a query gave no answer (did not start, failed, timed out), for the log.
    void failed(const QString &why);

private:
    void handleFinished(int exitCode, QProcess::ExitStatus status);

    QString m_program;
    QStringList m_arguments;
    QProcess *m_process = nullptr;
    QTimer m_timeout;
    bool m_timedOut = false;
};

} // namespace ddl::worker
