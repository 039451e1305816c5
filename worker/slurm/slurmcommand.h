#pragma once

#include "core/result.h"

#include <QObject>
#include <QProcess>
#include <QTimer>

namespace ddl::worker {

// One run of a Slurm client command (sbatch, squeue, scancel, sinfo): its standard output, or an
// error that names the command and says what it wrote on stderr. Output beyond 16 MiB, or no
// answer within the timeout, is an error. finished() is emitted once; the object deletes itself
// after it.
class SlurmCommand : public QObject
{
    Q_OBJECT
public:
    SlurmCommand(const QString &program,
                 const QStringList &arguments,
                 int timeoutMs,
                 QObject *parent = nullptr);

    void start();
    const Result<QByteArray> &result() const { return m_result; }
    // The same, waited for: only for the worker's start, before its event loop runs.
    static Result<QByteArray>
    runBlocking(const QString &program, const QStringList &arguments, int timeoutMs);

signals:
    void finished();

private:
    void handleFinished(int exitCode, QProcess::ExitStatus status);
    void fail(const QString &message);

    QProcess m_process;
    QTimer m_timeout;
    QString m_program;
    QStringList m_arguments;
    Result<QByteArray> m_result = QByteArray();
    bool m_done = false;
};

// What a finished command said, for an error message: its stderr's last 500 characters.
QString slurmCommandError(const QString &program,
                          const QStringList &arguments,
                          int exitCode,
                          const QByteArray &standardError);

} // namespace ddl::worker
