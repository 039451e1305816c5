#pragma once

#include <QObject>
#include <QProcess>
#include <QTimer>

namespace ddl::worker {

// The process IDs of `nvidia-smi --query-compute-apps=pid --format=csv,noheader`; lines that
// are no number are left out.
QList<qint64> parseComputeAppPids(const QByteArray &csv);

// Asks nvidia-smi which processes compute on the GPUs, as a QProcess of its own so that the
// worker's event loop never waits for it. One query at a time; one that takes longer than the
// timeout is killed and counts as failed.
class GpuProcessProbe : public QObject
{
    Q_OBJECT
public:
    explicit GpuProcessProbe(const QString &program, QObject *parent = nullptr);
    ~GpuProcessProbe() override;

    // Starts a query unless one is still running.
    void probe();
    void setTimeout(int ms) { m_timeout.setInterval(ms); }

signals:
    void answered(const QList<qint64> &pids);
    void failed(const QString &why);

private:
    void handleFinished(int exitCode, QProcess::ExitStatus status);

    QString m_program;
    QProcess *m_process = nullptr;
    QTimer m_timeout;
    bool m_timedOut = false;
};

} // namespace ddl::worker
