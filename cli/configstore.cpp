#include "configstore.h"

#include "jsonfile.h"

#include <QStandardPaths>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

namespace Key {
static constexpr auto Server = "server"_L1;
static constexpr auto Servers = "servers"_L1;
static constexpr auto FingerprintSha256 = "fingerprint_sha256"_L1;
static constexpr auto CaCert = "ca_cert"_L1;
} // namespace Key

QString ConfigStore::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/ddl"_s;
}

ConfigStore::ConfigStore(const QString &directory)
    : m_directory(directory)
{
}

QString ConfigStore::filePath() const
{
    return m_directory + u"/config.json"_s;
}

Status ConfigStore::load()
{
    Result<QJsonObject> root = JsonFile::read(filePath());
    if (!root)
        return root.error();
    m_root = *root;
    return Ok{};
}

Status ConfigStore::save() const
{
    return JsonFile::write(filePath(), m_root, JsonFile::Access::Normal);
}

QString ConfigStore::defaultServer() const
{
    return m_root.value(Key::Server).toString();
}

void ConfigStore::setDefaultServer(const QString &serverUrl)
{
    m_root.insert(Key::Server, serverUrl);
}

QJsonObject ConfigStore::serverEntry(const QString &serverKey) const
{
    return m_root.value(Key::Servers).toObject().value(serverKey).toObject();
}

void ConfigStore::setServerValue(const QString &serverKey,
                                 const QString &key,
                                 const QJsonValue &value)
{
    QJsonObject servers = m_root.value(Key::Servers).toObject();
    QJsonObject entry = servers.value(serverKey).toObject();
    if (value.isUndefined() || value.isNull())
        entry.remove(key);
    else
        entry.insert(key, value);
    if (entry.isEmpty())
        servers.remove(serverKey);
    else
        servers.insert(serverKey, entry);
    m_root.insert(Key::Servers, servers);
}

QByteArray ConfigStore::pinnedFingerprint(const QString &serverKey) const
{
    return serverEntry(serverKey).value(Key::FingerprintSha256).toString().toLatin1().toLower();
}

void ConfigStore::setPinnedFingerprint(const QString &serverKey, const QByteArray &sha256Hex)
{
    setServerValue(serverKey, Key::FingerprintSha256, QString::fromLatin1(sha256Hex.toLower()));
}

void ConfigStore::removePinnedFingerprint(const QString &serverKey)
{
    setServerValue(serverKey, Key::FingerprintSha256, QJsonValue());
}

QString ConfigStore::caCertificate(const QString &serverKey) const
{
    return serverEntry(serverKey).value(Key::CaCert).toString();
}

void ConfigStore::setCaCertificate(const QString &serverKey, const QString &path)
{
    setServerValue(serverKey, Key::CaCert, path.isEmpty() ? QJsonValue() : QJsonValue(path));
}

} // namespace ddl::cli
