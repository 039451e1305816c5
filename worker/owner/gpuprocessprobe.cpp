#include "gpuprocessprobe.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

QList<qint64> parseComputeAppPids(const QByteArray &csv)
{
    QList<qint64> pids;
    for (const QByteArray &line : csv.split('\n')) {
        bool ok = false;
        const qint64 pid = line.trimmed().toLongLong(&ok);
        if (ok && pid > 0)
            pids.append(pid);
    }
    return pids;
}

GpuProcessProbe::GpuProcessProbe(const QString &program, QObject *parent)
    : QObject(parent)
    , m_program(program)
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(10000);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        if (!m_process)
            return;
        m_timedOut = true;
        m_process->kill(); // finished() follows
    });
}

GpuProcessProbe::~GpuProcessProbe()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void GpuProcessProbe::probe()
{
    if (m_process)
        return;
    m_timedOut = false;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, &GpuProcessProbe::handleFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            handleFinished(-1, QProcess::CrashExit);
    });
    m_process->start(m_program, {u"--query-compute-apps=pid"_s, u"--format=csv,noheader"_s});
    m_timeout.start();
}

void GpuProcessProbe::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    m_timeout.stop();
    QProcess *process = std::exchange(m_process, nullptr);
    if (!process)
        return;
    process->disconnect(this);
    process->deleteLater();
    if (m_timedOut) {
        emit failed(u"%1 did not answer within %2 ms"_s.arg(m_program).arg(m_timeout.interval()));
    } else if (status != QProcess::NormalExit || exitCode != 0) {
        emit failed(u"%1 failed (exit %2): %3"_s.arg(m_program)
                        .arg(exitCode)
                        .arg(QString::fromLocal8Bit(process->readAllStandardError())
                                 .trimmed()
                                 .left(300)));
    } else {
        emit answered(parseComputeAppPids(process->readAllStandardOutput()));
    }
}

} // namespace ddl::worker
