#include "gpupoller.h"

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
    , m_program(program)
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(10000);
    connect(&m_timeout, &QTimer::timeout, this, &GpuPoller::handleTimeout);
}

GpuPoller::~GpuPoller()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void GpuPoller::poll()
{
    if (m_process)
        return;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::finished, this, &GpuPoller::handleFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            handleFinished(-1, QProcess::CrashExit);
    });
    m_process->start(m_program,
                     {u"--query-gpu=index,utilization.gpu,memory.used,memory.total"_s,
                      u"--format=csv,noheader,nounits"_s});
    m_timeout.start();
}

void GpuPoller::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    m_timeout.stop();
    QProcess *process = std::exchange(m_process, nullptr);
    if (!process)
        return;
    process->disconnect(this);
    process->deleteLater();
    const QList<GpuReading> readings =
        status == QProcess::NormalExit && exitCode == 0
            ? parseGpuUtilisationCsv(process->readAllStandardOutput())
            : QList<GpuReading>();
    if (readings.isEmpty()) {
        // Said once until it works again, not every few seconds.
        if (!std::exchange(m_failureLogged, true)) {
            qCWarning(lcWorkerAgent).noquote()
                << u"nvidia-smi gave no GPU utilisation (exit %1): %2"_s.arg(exitCode).arg(
                       QString::fromLocal8Bit(process->readAllStandardError()).trimmed().left(300));
        }
        return;
    }
    m_failureLogged = false;
    m_latest = readings;
    m_latestAge.start();
    emit readingsChanged();
}

void GpuPoller::handleTimeout()
{
    if (!m_process)
        return;
    qCWarning(lcWorkerAgent).noquote()
        << u"nvidia-smi did not answer within %1 ms; killed"_s.arg(m_timeout.interval());
    m_process->kill(); // finished() follows and clears it
}

QList<GpuReading> GpuPoller::latest(qint64 maxAgeMs) const
{
    if (!m_latestAge.isValid() || m_latestAge.elapsed() > maxAgeMs)
        return {};
    return m_latest;
}

} // namespace ddl::worker
