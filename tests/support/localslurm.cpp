#include "localslurm.h"

#include "polluntil.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace {
constexpr int SkipExitCode = 77; // slurmlocal.py: Slurm cannot run here
}

LocalSlurm::LocalSlurm(const Options &options)
    : m_dir(QDir::tempPath() + u"/ddl-slurm-XXXXXX"_s)
    , m_options(options)
{
    QFile::setPermissions(m_dir.path(),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup |
                              QFile::ExeOther);
}

LocalSlurm::~LocalSlurm()
{
    stop();
}

bool LocalSlurm::start(int timeoutMs)
{
    const QString script =
        qEnvironmentVariable("DDL_SOURCE_DIR") + u"/tests/support/slurmlocal.py"_s;
    m_process = std::make_unique<QProcess>();
    m_process->start(u"python3"_s,
                     {script,
                      u"--dir"_s,
                      m_dir.filePath(u"cluster"_s),
                      u"--cpus"_s,
                      QString::number(m_options.cpus),
                      u"--memory-mb"_s,
                      QString::number(m_options.memoryMb),
                      u"--gpus"_s,
                      QString::number(m_options.gpus),
                      u"--partition"_s,
                      m_options.partition});
    if (!m_process->waitForStarted(10000)) {
        m_why = u"cannot run python3 %1"_s.arg(script);
        return false;
    }
    QByteArray out;
    const PollResult ready = pollUntil(
        [&] {
            out += m_process->readAllStandardOutput();
            return (out.contains("SLURM_CONF=") && out.endsWith('\n')) ||
                   m_process->state() == QProcess::NotRunning;
        },
        timeoutMs,
        u"the local Slurm's node to be idle"_s,
        100);
    if (m_process->state() == QProcess::NotRunning || !ready) {
        m_unavailable = m_process->exitCode() == SkipExitCode;
        m_why = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
        if (m_why.isEmpty())
            m_why = ready.message;
        return false;
    }
    m_conf = QString::fromUtf8(out.mid(out.indexOf("SLURM_CONF=") + 11)).trimmed();
    return true;
}

void LocalSlurm::stop()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    // slurmlocal.py ends its daemons and their steps when its input closes.
    m_process->closeWriteChannel();
    if (!m_process->waitForFinished(60000)) {
        m_process->terminate();
        m_process->waitForFinished(30000);
    }
}

QProcessEnvironment LocalSlurm::environment() const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"SLURM_CONF"_s, m_conf);
    return environment;
}

LocalSlurm::Run
LocalSlurm::run(const QString &program, const QStringList &arguments, int timeoutMs) const
{
    QProcess process;
    process.setProcessEnvironment(environment());
    process.start(program, arguments);
    Run result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        result.err = u"%1 did not finish within %2 ms"_s.arg(program).arg(timeoutMs);
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}
