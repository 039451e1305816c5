#pragma once

#include "config/workerconfig.h"
#include "core/result.h"

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>
#include <functional>

namespace ddl::worker {

class WorkerAgent;

// Lets the owner change their policy without a restart (docs/owners.md): on reload() (SIGHUP)
// and when the config file changes, reads the config again as at start (the file, then the
// command line's flags over it) and hands it to the agent, which applies the owner's part. A
// config that does not parse, or that the agent refuses, is logged and the running one kept.
class ConfigReloader : public QObject
{
    Q_OBJECT
public:
    using Reader = std::function<Result<WorkerConfig>()>;

    // configFile: the file to watch; empty: reload() only.
    ConfigReloader(WorkerAgent &agent,
                   Reader read,
                   const QString &configFile,
                   QObject *parent = nullptr);

    // Reads and applies now; why is said in the log ("SIGHUP", "the file changed").
    void reload(const QString &why);

private:
    void handleFileEvent();

    WorkerAgent &m_agent;
    Reader m_read;
    QString m_file;
    QByteArray m_lastContent; // what the file held when last read: a touch is no change
    QFileSystemWatcher m_watcher;
    QTimer m_settle; // editors write in several steps; read once they are done
};

} // namespace ddl::worker
