#include "desktopsettings.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

static QString defaultFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + u"/ddl-desktop.ini"_s;
}

DesktopSettings::DesktopSettings(const QString &filePath)
    : m_settings(filePath.isEmpty() ? defaultFile() : filePath, QSettings::IniFormat)
{}

QString DesktopSettings::directory() const
{
    return QFileInfo(m_settings.fileName()).absolutePath();
}

QString DesktopSettings::serverGroup(const QString &serverKey)
{
    // QSettings keys may not hold '/' freely; percent-encoding keeps one group per server.
    return u"servers/"_s + QString::fromLatin1(QUrl::toPercentEncoding(serverKey));
}

QString DesktopSettings::serverUrl() const
{
    return m_settings.value(u"connection/server"_s).toString();
}

void DesktopSettings::setServerUrl(const QString &url)
{
    m_settings.setValue(u"connection/server"_s, url);
}

QString DesktopSettings::email() const
{
    return m_settings.value(u"connection/email"_s).toString();
}

void DesktopSettings::setEmail(const QString &email)
{
    m_settings.setValue(u"connection/email"_s, email);
}

QByteArray DesktopSettings::pinnedFingerprint(const QString &serverKey) const
{
    return m_settings.value(serverGroup(serverKey) + u"/fingerprint_sha256"_s).toString().toLatin1();
}

void DesktopSettings::setPinnedFingerprint(const QString &serverKey, const QByteArray &sha256Hex)
{
    m_settings.setValue(serverGroup(serverKey) + u"/fingerprint_sha256"_s,
                        QString::fromLatin1(sha256Hex.toLower()));
}

QString DesktopSettings::caFile(const QString &serverKey) const
{
    return m_settings.value(serverGroup(serverKey) + u"/ca_file"_s).toString();
}

void DesktopSettings::setCaFile(const QString &serverKey, const QString &path)
{
    m_settings.setValue(serverGroup(serverKey) + u"/ca_file"_s, path);
}

QString DesktopSettings::language() const
{
    return m_settings.value(u"ui/language"_s).toString();
}

void DesktopSettings::setLanguage(const QString &language)
{
    m_settings.setValue(u"ui/language"_s, language);
}

bool DesktopSettings::useKeychain() const
{
    return m_settings.value(u"security/use_keychain"_s, true).toBool();
}

void DesktopSettings::setUseKeychain(bool use)
{
    m_settings.setValue(u"security/use_keychain"_s, use);
}

} // namespace ddl::desktop
