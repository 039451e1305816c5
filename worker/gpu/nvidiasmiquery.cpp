#include "nvidiasmiquery.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

NvidiaSmiQuery::NvidiaSmiQuery(const QString &program,
                               const QStringList &arguments,
                               QObject *parent)
    : QObject(parent)
    , m_program(program)
    , m_arguments(arguments)
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(10000);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        if (!m_process)
            return;
        m_timedOut = true;
        m_process->kill(); // finished() follows and clears it
    });
}

NvidiaSmiQuery::~NvidiaSmiQuery()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void NvidiaSmiQuery::run()
{
    if (m_process)
        return;
    m_timedOut = false;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::finished, this, &NvidiaSmiQuery::handleFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            handleFinished(-1, QProcess::CrashExit);
    });
    m_process->start(m_program, m_arguments);
    m_timeout.start();
}

void NvidiaSmiQuery::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    m_timeout.stop();
    QProcess *process = std::exchange(m_process, nullptr);
    if (!process)
        return;
    process->disconnect(this);
    process->deleteLater();
    if (m_timedOut) {
        emit failed(
            u"%1 did not answer within %2 ms; killed"_s.arg(m_program).arg(m_timeout.interval()));
    } else if (exitCode == -1 && status == QProcess::CrashExit &&
               process->error() == QProcess::FailedToStart) {
        emit failed(u"%1 did not start: %2"_s.arg(m_program, process->errorString()));
    } else if (status != QProcess::NormalExit || exitCode != 0) {
        emit failed(u"%1 failed (exit %2): %3"_s.arg(m_program).arg(exitCode).arg(
            QString::fromLocal8Bit(process->readAllStandardError()).trimmed().left(300)));
    } else {
        emit answered(process->readAllStandardOutput());
    }
}

} // namespace ddl::worker
