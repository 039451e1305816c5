#include "tokenstore.h"

#include <QDir>
#include <QFile>
#include <QFutureWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QSaveFile>
#include <QtConcurrent/QtConcurrentRun>

#include <qt6keychain/keychain.h>

using namespace Qt::Literals::StringLiterals;

Q_LOGGING_CATEGORY(lcTokens, "ddl.desktop.tokens")

namespace ddl::desktop {

static const auto KeychainService = u"ddl-desktop"_s;

TokenStore::TokenStore(const QString &fallbackDirectory, bool useKeychain, QObject *parent)
    : QObject(parent)
    , m_directory(fallbackDirectory)
    , m_useKeychain(useKeychain)
{}

QString TokenStore::fallbackFile() const
{
    return QDir(m_directory).filePath(u"tokens.json"_s);
}

void TokenStore::read(const QString &key)
{
    if (!m_useKeychain) {
        readFile(key);
        return;
    }
    auto *job = new QKeychain::ReadPasswordJob(KeychainService, this);
    job->setKey(key);
    connect(job, &QKeychain::Job::finished, this, [this, job, key] {
        job->deleteLater();
        if (job->error() == QKeychain::NoError) {
            emit tokenRead(key, job->textData());
            return;
        }
        // Not found in the keychain may still mean "kept in the file by an earlier fallback".
        if (job->error() != QKeychain::EntryNotFound) {
            qCInfo(lcTokens) << "keychain read failed, using the file:" << job->errorString();
            m_usedFallback = true;
        }
        readFile(key);
    });
    job->start();
}

void TokenStore::write(const QString &key, const QString &token)
{
    if (!m_useKeychain) {
        writeFile(key, token, false);
        return;
    }
    auto *job = new QKeychain::WritePasswordJob(KeychainService, this);
    job->setKey(key);
    job->setTextData(token);
    connect(job, &QKeychain::Job::finished, this, [this, job, key, token] {
        job->deleteLater();
        if (job->error() == QKeychain::NoError) {
            emit tokenWritten(key, true);
            return;
        }
        qCInfo(lcTokens) << "keychain write failed, using the file:" << job->errorString();
        m_usedFallback = true;
        writeFile(key, token, false);
    });
    job->start();
}

void TokenStore::remove(const QString &key)
{
    // Both places: a token may sit in the file from a time the keychain was away.
    if (m_useKeychain) {
        auto *job = new QKeychain::DeletePasswordJob(KeychainService, this);
        job->setKey(key);
        connect(job, &QKeychain::Job::finished, job, &QObject::deleteLater);
        job->start();
    }
    writeFile(key, {}, true);
}

// The file is read and written off the GUI thread; one lock keeps writers from racing.
static QMutex s_fileLock;

static QJsonObject loadTokens(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

void TokenStore::readFile(const QString &key)
{
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, key] {
        watcher->deleteLater();
        emit tokenRead(key, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([path = fallbackFile(), key] {
        QMutexLocker lock(&s_fileLock);
        return loadTokens(path).value(key).toString();
    }));
}

void TokenStore::writeFile(const QString &key, const QString &token, bool remove)
{
    auto *watcher = new QFutureWatcher<bool>(this);
    connect(watcher, &QFutureWatcher<bool>::finished, this, [this, watcher, key, remove] {
        watcher->deleteLater();
        if (remove)
            emit tokenRemoved(key);
        else
            emit tokenWritten(key, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([path = fallbackFile(), dir = m_directory, key, token,
                                          remove] {
        QMutexLocker lock(&s_fileLock);
        if (!QDir().mkpath(dir))
            return false;
        QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                       | QFileDevice::ExeOwner);
        QJsonObject tokens = loadTokens(path);
        if (remove)
            tokens.remove(key);
        else
            tokens.insert(key, token);
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return false;
        // Owner-only before a byte of a secret is written.
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(QJsonDocument(tokens).toJson());
        return file.commit();
    }));
}

} // namespace ddl::desktop
