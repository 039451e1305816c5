#pragma once

#include "wire/utilisationsample.h"

#include <QElapsedTimer>
#include <QObject>

namespace ddl::worker {

// Rows of `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total
// --format=csv,noheader,nounits`; rows it cannot read ("[N/A]") are left out.
QList<GpuReading> parseGpuUtilisationCsv(const QByteArray &csv);

class NvidiaSmiQuery;

// Asks nvidia-smi for every GPU's utilisation and memory through an NvidiaSmiQuery (never
// blocking the event loop). latest() is what the last query that succeeded said, for at most
// maxAgeMs.
class GpuPoller : public QObject
{
    Q_OBJECT
public:
    explicit GpuPoller(const QString &program, QObject *parent = nullptr);

    // Starts a query unless one is still running.
    void poll();
    void setTimeout(int ms);
    QList<GpuReading> latest(qint64 maxAgeMs) const;

signals:
    void readingsChanged();

private:
    void handleAnswer(const QByteArray &csv);
    void handleFailure(const QString &why);

    NvidiaSmiQuery *m_query = nullptr;
    QList<GpuReading> m_latest;
    QElapsedTimer m_latestAge;
    bool m_failureLogged = false;
};

} // namespace ddl::worker
