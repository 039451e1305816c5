#include "venvmanager.h"

#include "core/sha256.h"
#include "runner/taskprocess.h"
#include "workerlogging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace ddl::worker {

static const QString ReadyMarker = u".ddl-ready"_s;

bool pipOutputSaysIndexUnreachable(const QByteArray &output)
{
    static const char *const signs[] = {
        "NewConnectionError",
        "Failed to establish a new connection",
        "Temporary failure in name resolution",
        "Name or service not known",
        "Network is unreachable",
        "No route to host",
        "Connection refused",
        "ConnectTimeoutError",
        "Read timed out",
        "ProxyError",
        "Could not fetch URL",
        "There was a problem confirming the ssl certificate",
    };
    for (const char *sign : signs) {
        if (output.contains(sign))
            return true;
    }
    return false;
}

// One environment being made, with every task that waits for it.
class VenvBuild : public QObject
{
public:
    enum class Step { CreateVenv, Install, InstallOffline };

    VenvBuild(VenvManager *manager, const QString &hash, const QString &requirementsFile)
        : QObject(manager)
        , m_manager(manager)
        , m_hash(hash)
        , m_requirementsFile(requirementsFile)
        , m_dir(manager->venvDir(hash))
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        // pip runs the packages' own build code: it gets a clean environment, plus the owner's
        // proxy and pip settings (documented: they reach that code).
        QProcessEnvironment env = cleanEnvironment(scratchDir());
        const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
        for (const QString &name : system.keys()) {
            if (name.startsWith(u"PIP_"_s) ||
                name.compare(u"http_proxy"_s, Qt::CaseInsensitive) == 0 ||
                name.compare(u"https_proxy"_s, Qt::CaseInsensitive) == 0 ||
                name.compare(u"no_proxy"_s, Qt::CaseInsensitive) == 0)
                env.insert(name, system.value(name));
        }
        env.insert(u"PIP_NO_INPUT"_s, u"1"_s);
        env.insert(u"PIP_DISABLE_PIP_VERSION_CHECK"_s, u"1"_s);
        env.insert(u"PYTHONUNBUFFERED"_s, u"1"_s);
        m_process.setProcessEnvironment(env);
        connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
            const QByteArray bytes = m_process.readAllStandardOutput();
            m_stepOutput += bytes;
            if (m_stepOutput.size() > 4 * 1024 * 1024)
                m_stepOutput = m_stepOutput.right(1024 * 1024);
            broadcast(bytes);
        });
        connect(&m_process,
                &QProcess::finished,
                this,
                [this](int exitCode, QProcess::ExitStatus status) {
                    handleStepFinished(status == QProcess::NormalExit ? exitCode : -1);
                });
        connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart) {
                fail(u"cannot start %1: %2"_s.arg(m_process.program(), m_process.errorString()));
            }
        });
    }

    ~VenvBuild() override
    {
        m_process.disconnect(this);
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(2000);
        }
    }

    void addWaiter(QObject *context, VenvManager::OutputSink sink, VenvManager::Callback done)
    {
        if (!m_waiters.isEmpty() && sink)
            sink("[ddl-worker] waiting for the Python environment another task is preparing\n");
        m_waiters.append({context, std::move(sink), std::move(done)});
    }

    void start()
    {
        if (QFileInfo::exists(m_dir))
            QDir(m_dir).removeRecursively(); // left half-made by an earlier run
        QDir(scratchDir()).removeRecursively();
        // Both exist before the sandbox binds them; venv fills an empty folder as well.
        if (!QDir().mkpath(m_dir) || !QDir().mkpath(scratchDir())) {
            fail(u"cannot create %1"_s.arg(m_dir));
            return;
        }
        broadcast("[ddl-worker] requirements.txt found: preparing a Python environment in " +
                  m_dir.toUtf8() + '\n');
        run(Step::CreateVenv,
            m_manager->basePython(),
            {u"-m"_s, u"venv"_s, u"--system-site-packages"_s, m_dir});
    }

private:
    struct Waiter
    {
        QPointer<QObject> context;
        VenvManager::OutputSink sink;
        VenvManager::Callback done;
    };

    void broadcast(const QByteArray &bytes)
    {
        for (const Waiter &waiter : std::as_const(m_waiters)) {
            if (waiter.context && waiter.sink)
                waiter.sink(bytes);
        }
    }

    // pip's HOME and TMPDIR in the sandbox, removed when the build ends.
    QString scratchDir() const { return m_dir + u".scratch"_s; }

    void run(Step step, const QString &program, const QStringList &arguments)
    {
        m_step = step;
        m_stepOutput.clear();
        broadcast("[ddl-worker] $ " + (program + u' ' + arguments.join(u' ')).toUtf8() + '\n');
        const Sandbox &sandbox = m_manager->m_sandbox;
        if (sandbox.isEnabled()) {
            SandboxSpec spec;
            spec.policy = m_manager->m_sandboxPolicy;
            spec.writablePaths << m_dir;
            spec.scratchDir = scratchDir();
            spec.workingDir = m_dir;
            spec.processLimit = TaskProcessAllowance;
            sandbox.setup(m_process, spec, program, arguments);
        } else {
            m_process.setProgram(program);
            m_process.setArguments(arguments);
        }
        m_process.start();
    }

    QString pipLogPath() const { return m_dir + u"/.ddl-pip-install.log"_s; }

    // The end of pip's verbose log of the step that just finished, then removed.
    QByteArray takePipLog() const
    {
        QFile log(pipLogPath());
        QByteArray text;
        if (log.open(QIODevice::ReadOnly)) {
            log.seek(std::max<qint64>(0, log.size() - 4 * 1024 * 1024));
            text = log.readAll();
            log.close();
        }
        QFile::remove(pipLogPath());
        return text;
    }

    QStringList pipInstall(bool offline) const
    {
        QStringList arguments{u"-m"_s, u"pip"_s, u"install"_s, u"--progress-bar"_s, u"off"_s};
        if (offline) {
            arguments << u"--no-index"_s;
        } else {
            // With --retries 0 pip tells an unreachable index apart only in its verbose log.
            arguments << u"--timeout"_s << u"5"_s << u"--retries"_s << u"0"_s << u"--log"_s
                      << pipLogPath();
        }
        arguments << u"-r"_s << m_dir + u"/requirements.txt"_s;
        return arguments;
    }

    void handleStepFinished(int exitCode)
    {
        const QString python = VenvManager::pythonOf(m_dir);
        switch (m_step) {
        case Step::CreateVenv:
            if (exitCode != 0) {
                fail(u"cannot create a virtual environment with '%1 -m venv' (exit %2); on "
                     u"Debian install python3-venv"_s.arg(m_manager->basePython())
                         .arg(exitCode));
                return;
            }
            QFile::remove(m_dir + u"/requirements.txt"_s);
            if (!QFile::copy(m_requirementsFile, m_dir + u"/requirements.txt"_s)) {
                fail(u"cannot copy %1 into the environment"_s.arg(m_requirementsFile));
                return;
            }
            run(Step::Install, python, pipInstall(false));
            return;
        case Step::Install: {
            const QByteArray verboseLog = takePipLog();
            if (exitCode == 0) {
                succeed();
            } else if (pipOutputSaysIndexUnreachable(m_stepOutput) ||
                       pipOutputSaysIndexUnreachable(verboseLog)) {
                broadcast("[ddl-worker] package index unreachable; trying the packages already "
                          "installed on this machine (pip install --no-index)\n");
                run(Step::InstallOffline, python, pipInstall(true));
            } else {
                fail(u"pip install -r requirements.txt failed (exit %1); see pip's output "
                     u"above"_s.arg(exitCode));
            }
            return;
        }
        case Step::InstallOffline:
            if (exitCode == 0) {
                succeed();
            } else {
                fail(u"the package index is unreachable and requirements.txt is not satisfied "
                     u"by the packages installed for %1; install them on the worker (for "
                     u"instance Debian's python3-* packages) or give it access to a package "
                     u"index"_s.arg(m_manager->basePython()));
            }
            return;
        }
    }

    void succeed()
    {
        QFile marker(m_dir + u'/' + ReadyMarker);
        if (!marker.open(QIODevice::WriteOnly)) {
            fail(u"cannot write %1"_s.arg(marker.fileName()));
            return;
        }
        marker.close();
        broadcast("[ddl-worker] Python environment ready\n");
        qCInfo(lcWorkerRunner) << "venv" << m_hash << "ready";
        finish(m_dir);
    }

    void fail(const QString &message)
    {
        if (m_finished)
            return;
        qCWarning(lcWorkerRunner).noquote() << "venv" << m_hash << "failed:" << message;
        QDir(m_dir).removeRecursively();
        finish(Error::make(ErrorCode::VenvFailed, message, u"requirements.txt"_s));
    }

    void finish(const Result<QString> &result)
    {
        if (m_finished)
            return;
        m_finished = true;
        QDir(scratchDir()).removeRecursively();
        const QList<Waiter> waiters = std::exchange(m_waiters, {});
        // The manager forgets this build first, so that a callback may ask for it again.
        m_manager->handleBuildFinished(m_hash);
        for (const Waiter &waiter : waiters) {
            if (waiter.context)
                waiter.done(result);
        }
        deleteLater();
    }

    VenvManager *m_manager;
    QString m_hash;
    QString m_requirementsFile;
    QString m_dir;
    QProcess m_process;
    Step m_step = Step::CreateVenv;
    QByteArray m_stepOutput;
    QList<Waiter> m_waiters;
    bool m_finished = false;
};

VenvManager::VenvManager(const QString &root, const QString &basePython, QObject *parent)
    : QObject(parent)
    , m_root(root)
    , m_basePython(basePython)
{
}

void VenvManager::setSandbox(const Sandbox &sandbox, const SandboxPolicy &policy)
{
    m_sandbox = sandbox;
    m_sandboxPolicy = policy;
}

QString VenvManager::venvDir(const QString &requirementsHash) const
{
    return m_root + u'/' + requirementsHash;
}

QString VenvManager::pythonOf(const QString &venvDir)
{
    return venvDir + u"/bin/python"_s;
}

void VenvManager::prepare(const QString &requirementsFile,
                          QObject *context,
                          OutputSink sink,
                          Callback done)
{
    const Result<QString> hash = sha256OfFile(requirementsFile);
    if (!hash) {
        QTimer::singleShot(0, context, [done, error = hash.error()] { done(error); });
        return;
    }
    const QString dir = venvDir(*hash);
    if (QFileInfo::exists(dir + u'/' + ReadyMarker)) {
        qCDebug(lcWorkerRunner) << "venv" << *hash << "reused";
        QTimer::singleShot(0, context, [sink, done, dir] {
            sink("[ddl-worker] reusing the Python environment " + dir.toUtf8() + '\n');
            done(dir);
        });
        return;
    }
    VenvBuild *build = m_builds.value(*hash);
    const bool isNew = build == nullptr;
    if (isNew) {
        build = new VenvBuild(this, *hash, requirementsFile);
        m_builds.insert(*hash, build);
    }
    build->addWaiter(context, std::move(sink), std::move(done));
    if (isNew)
        QTimer::singleShot(0, build, [build] { build->start(); });
}

void VenvManager::handleBuildFinished(const QString &hash)
{
    m_builds.remove(hash);
}

} // namespace ddl::worker
