#include "slurmcommand.h"

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {
constexpr qint64 MaxOutputBytes = 16 * 1024 * 1024;
}

QString slurmCommandError(const QString &program,
                          const QStringList &arguments,
                          int exitCode,
                          const QByteArray &standardError)
{
    const QString said = QString::fromUtf8(standardError).simplified().right(500);
    return u"%1 %2 failed (exit code %3)%4"_s.arg(program,
                                                  arguments.join(u' ').left(300),
                                                  QString::number(exitCode),
                                                  said.isEmpty() ? QString() : u": "_s + said);
}

SlurmCommand::SlurmCommand(const QString &program,
                           const QStringList &arguments,
                           int timeoutMs,
                           QObject *parent)
    : QObject(parent)
    , m_program(program)
    , m_arguments(arguments)
{
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_process.kill();
        fail(u"%1 did not answer within %2 s; is slurmctld reachable?"_s.arg(m_program).arg(
            m_timeout.interval() / 1000));
    });
    connect(&m_process, &QProcess::finished, this, &SlurmCommand::handleFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(u"cannot run %1 (%2); is Slurm's client installed and on PATH?"_s.arg(
                m_program, m_process.errorString()));
    });
    // Both streams are kept until the end: each is bounded.
    const auto bounded = [this](QProcess::ProcessChannel channel) {
        m_process.setReadChannel(channel);
        if (m_process.bytesAvailable() > MaxOutputBytes) {
            m_process.kill();
            fail(u"%1 wrote more than 16 MiB"_s.arg(m_program));
        }
    };
    connect(&m_process, &QProcess::readyReadStandardOutput, this,
            [bounded] { bounded(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this,
            [bounded] { bounded(QProcess::StandardError); });
}

void SlurmCommand::start()
{
    m_timeout.start();
    m_process.start(m_program, m_arguments);
}

void SlurmCommand::handleFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_done)
        return;
    if (status != QProcess::NormalExit || exitCode != 0) {
        fail(slurmCommandError(m_program, m_arguments, exitCode, m_process.readAllStandardError()));
        return;
    }
    m_done = true;
    m_timeout.stop();
    m_result = m_process.readAllStandardOutput();
    emit finished();
    deleteLater();
}

void SlurmCommand::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    m_result = Error::make(ErrorCode::Unreachable, message);
    emit finished();
    deleteLater();
}

Result<QByteArray>
SlurmCommand::runBlocking(const QString &program, const QStringList &arguments, int timeoutMs)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForStarted(timeoutMs)) {
        return Error::make(ErrorCode::Unreachable,
                           u"cannot run %1 (%2); is Slurm's client installed and on PATH?"_s.arg(
                               program, process.errorString()));
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        return Error::make(
            ErrorCode::Unreachable,
            u"%1 did not answer within %2 s; is slurmctld reachable?"_s.arg(program).arg(timeoutMs /
                                                                                         1000));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        return Error::make(
            ErrorCode::Unreachable,
            slurmCommandError(
                program, arguments, process.exitCode(), process.readAllStandardError()));
    }
    return process.readAllStandardOutput();
}

} // namespace ddl::worker
