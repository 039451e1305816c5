#pragma once

#include "wire/utilisationsample.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QTimer>

namespace ddl::worker {

// Rows of `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total
// --format=csv,noheader,nounits`; rows it cannot read ("[N/A]") are left out.
QList<GpuReading> parseGpuUtilisationCsv(const QByteArray &csv);

// Asks nvidia-smi for every GPU's utilisation and memory, as a QProcess of its own so that the
// worker's event loop never waits for it (a busy driver can take seconds to answer). One query at
// a time; one that takes longer than the timeout is killed. latest() is what the last query that
// succeeded said, for at most maxAgeMs.
class GpuPoller : public QObject
{
    Q_OBJECT
public:
    explicit GpuPoller(const QString &program, QObject *parent = nullptr);
    ~GpuPoller() override;

    // Starts a query unless one is still running.
    void poll();
    void setTimeout(int ms) { m_timeout.setInterval(ms); }
    QList<GpuReading> latest(qint64 maxAgeMs) const;

signals:
    void readingsChanged();

private:
    void handleFinished(int exitCode, QProcess::ExitStatus status);
    void handleTimeout();

    QString m_program;
    QProcess *m_process = nullptr;
    QTimer m_timeout;
    QList<GpuReading> m_latest;
    QElapsedTimer m_latestAge;
    bool m_failureLogged = false;
};

} // namespace ddl::worker
