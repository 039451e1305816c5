#pragma once

#include "core/result.h"
#include "sandbox/sandbox.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <functional>

namespace ddl::worker {

class VenvBuild;

// Python virtual environments for packages that have a requirements.txt: one per SHA-256 of
// that file, under WORK_DIR/venvs/<hash>, made once (python -m venv --system-site-packages, then
// pip install -r) and shared by every task with the same requirements. When no package index can
// be reached, it says so in the task's log and falls back to pip install --no-index, which
// succeeds when the requirements are already satisfied (for instance by Debian packages).
// pip runs code of the packages it builds (setup.py), so with a sandbox it runs inside one too:
// only the venv folder is writable, and the network is the tasks' (none with --no-network, when
// only the offline install can work).
class VenvManager : public QObject
{
    Q_OBJECT
public:
    using OutputSink = std::function<void(const QByteArray &bytes)>;
    using Callback = std::function<void(const Result<QString> &venvDir)>;

    VenvManager(const QString &root, const QString &basePython, QObject *parent = nullptr);

    // Sends pip's output to sink while it works, then done(venv folder). Both are dropped when
    // context is gone; the build itself goes on for the others waiting on it.
    void prepare(const QString &requirementsFile, QObject *context, OutputSink sink, Callback done);

    // Builds run inside sandbox from now on (default: unconfined).
    void setSandbox(const Sandbox &sandbox, const SandboxPolicy &policy);

    QString basePython() const { return m_basePython; }
    QString venvDir(const QString &requirementsHash) const;
    static QString pythonOf(const QString &venvDir);

private:
    friend class VenvBuild;
    void handleBuildFinished(const QString &hash);

    QString m_root;
    QString m_basePython;
    Sandbox m_sandbox;
    SandboxPolicy m_sandboxPolicy;
    QHash<QString, VenvBuild *> m_builds;
};

// True when pip's output says that it could not reach the package index (as opposed to a
// requirement that does not exist or does not build).
bool pipOutputSaysIndexUnreachable(const QByteArray &output);

} // namespace ddl::worker
