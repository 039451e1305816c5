#pragma once

#include <QSettings>
#include <QString>

namespace ddl::desktop {

// The desktop client's settings behind typed accessors: every key is written here and nowhere
// else. Per-server values are kept under the server's normalised URL.
class DesktopSettings
{
public:
    // filePath empty: the platform's application config location (ddl-desktop.ini).
    explicit DesktopSettings(const QString &filePath = {});

    QString filePath() const { return m_settings.fileName(); }
    // The folder holding the settings file; the token fallback file lives beside it.
    QString directory() const;

    QString serverUrl() const;
    void setServerUrl(const QString &url);
    QString email() const;
    void setEmail(const QString &email);

    // Lowercase hex SHA-256 of the server certificate trusted on first use.
    QByteArray pinnedFingerprint(const QString &serverKey) const;
    void setPinnedFingerprint(const QString &serverKey, const QByteArray &sha256Hex);
    QString caFile(const QString &serverKey) const;
    void setCaFile(const QString &serverKey, const QString &path);

    // "" follows the system; else a locale name such as "de" or "zh_CN".
    QString language() const;
    void setLanguage(const QString &language);

    // False keeps tokens out of the OS keychain (the 0600 file only).
    bool useKeychain() const;
    void setUseKeychain(bool use);

    void sync() { m_settings.sync(); }

private:
    static QString serverGroup(const QString &serverKey);

    mutable QSettings m_settings;
};

} // namespace ddl::desktop
