#include "configreloader.h"

#include "agent/workeragent.h"
#include "workerlogging.h"

#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

// A config file is a few hundred bytes; a bigger one is read by the parser, which says so.
QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(1 << 20) : QByteArray();
}

} // namespace

ConfigReloader::ConfigReloader(WorkerAgent &agent,
                               Reader read,
                               const QString &configFile,
                               QObject *parent)
    : QObject(parent)
    , m_agent(agent)
    , m_read(std::move(read))
    , m_file(configFile)
{
    m_settle.setSingleShot(true);
    m_settle.setInterval(300);
    connect(&m_settle, &QTimer::timeout, this, &ConfigReloader::handleFileEvent);
    if (m_file.isEmpty())
        return;
    m_lastContent = contentOf(m_file);
    // The folder too: an editor that saves by renaming a new file over the old one ends the
    // watch of the file itself.
    m_watcher.addPath(m_file);
    m_watcher.addPath(QFileInfo(m_file).absolutePath());
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, &m_settle, qOverload<>(&QTimer::start));
    connect(
        &m_watcher, &QFileSystemWatcher::directoryChanged, &m_settle, qOverload<>(&QTimer::start));
}

void ConfigReloader::handleFileEvent()
{
    if (!m_watcher.files().contains(m_file) && QFileInfo::exists(m_file))
        m_watcher.addPath(m_file);
    const QByteArray content = contentOf(m_file);
    if (content == m_lastContent)
        return;
    reload(u"%1 changed"_s.arg(m_file));
}

void ConfigReloader::reload(const QString &why)
{
    if (!m_file.isEmpty())
        m_lastContent = contentOf(m_file);
    const Result<WorkerConfig> config = m_read();
    if (!config) {
        qCWarning(lcWorkerAgent).noquote()
            << u"%1: the config was not applied, the running one stays: %2"_s.arg(
                   why, config.error().message);
        return;
    }
    if (const Status applied = m_agent.applyOwnerSettings(*config); !applied) {
        qCWarning(lcWorkerAgent).noquote()
            << u"%1: the owner's settings were not applied, the running ones stay: %2"_s.arg(
                   why, applied.error().message);
        return;
    }
    qCInfo(lcWorkerAgent).noquote()
        << u"%1: the owner's settings were applied (the others take effect at a restart)"_s.arg(
               why);
}

} // namespace ddl::worker
