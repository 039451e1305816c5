#include "gpupoller.h"

#include "gpu/nvidiasmiquery.h"
#include "workerlogging.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

QList<GpuReading> parseGpuUtilisationCsv(const QByteArray &csv)
{
    QList<GpuReading> readings;
    for (const QByteArray &line : csv.split('\n')) {
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() != 4)
            continue;
        bool ok[4] = {};
        GpuReading reading;
        reading.index = fields.at(0).trimmed().toInt(&ok[0]);
        reading.utilisationPercent = fields.at(1).trimmed().toDouble(&ok[1]);
        reading.memoryUsedMb = fields.at(2).trimmed().toLongLong(&ok[2]);
        reading.memoryTotalMb = fields.at(3).trimmed().toLongLong(&ok[3]);
        if (ok[0] && ok[1] && ok[2] && ok[3] && reading.index >= 0)
            readings.append(reading);
    }
    return readings;
}

GpuPoller::GpuPoller(const QString &program, QObject *parent)
    : QObject(parent)
    , m_query(new NvidiaSmiQuery(program,
                                 {u"--query-gpu=index,utilization.gpu,memory.used,memory.total"_s,
                                  u"--format=csv,noheader,nounits"_s},
                                 this))
{
    connect(m_query, &NvidiaSmiQuery::answered, this, &GpuPoller::handleAnswer);
    connect(m_query, &NvidiaSmiQuery::failed, this, &GpuPoller::handleFailure);
}

void GpuPoller::poll()
{
    m_query->run();
}

void GpuPoller::setTimeout(int ms)
{
    m_query->setTimeout(ms);
}

void GpuPoller::handleAnswer(const QByteArray &csv)
{
    const QList<GpuReading> readings = parseGpuUtilisationCsv(csv);
    if (readings.isEmpty()) {
        handleFailure(u"%1 gave no row it could read: %2"_s.arg(
            m_query->program(), QString::fromLocal8Bit(csv).trimmed().left(300)));
        return;
    }
    m_failureLogged = false;
    m_latest = readings;
    m_latestAge.start();
    emit readingsChanged();
}

void GpuPoller::handleFailure(const QString &why)
{
    // Said once until it works again, not every few seconds.
    if (!std::exchange(m_failureLogged, true))
        qCWarning(lcWorkerAgent).noquote() << u"no GPU utilisation: %1"_s.arg(why);
}

QList<GpuReading> GpuPoller::latest(qint64 maxAgeMs) const
{
    if (!m_latestAge.isValid() || m_latestAge.elapsed() > maxAgeMs)
        return {};
    return m_latest;
}

} // namespace ddl::worker
