#pragma once

#include <QObject>
#include <QString>

namespace ddl::desktop {

// Keeps refresh tokens: in the OS keychain through QtKeychain, or, where no keychain service
// answers (a headless Linux box, a test), in a JSON file only its owner may read (0600, folder
// 0700). Every call is asynchronous: keychains may prompt, and files are disk.
class TokenStore : public QObject
{
    Q_OBJECT
public:
    TokenStore(const QString &fallbackDirectory, bool useKeychain, QObject *parent = nullptr);

    void read(const QString &key);
    void write(const QString &key, const QString &token);
    void remove(const QString &key);

    QString fallbackFile() const;
    // True once a keychain call failed and the file took over.
    bool usedFallback() const { return m_usedFallback; }

signals:
    // token is empty when none is stored.
    void tokenRead(const QString &key, const QString &token);
    void tokenWritten(const QString &key, bool ok);
    void tokenRemoved(const QString &key);

private:
    void readFile(const QString &key);
    void writeFile(const QString &key, const QString &token, bool remove);

    QString m_directory;
    bool m_useKeychain;
    bool m_usedFallback = false;
};

} // namespace ddl::desktop
