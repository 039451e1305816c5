#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace ddl::cli {

// The client's settings in config.json, behind typed accessors: the keys are written here and
// nowhere else. Per-server settings are keyed by ServerAddress::key().
//
// {"server": "https://host:8443",
//  "servers": {"https://host:8443": {"fingerprint_sha256": "hex", "ca_cert": "/path"}}}
class ConfigStore
{
    Q_DECLARE_TR_FUNCTIONS(ConfigStore)
public:
    // The folder of config.json and credentials.json: $XDG_CONFIG_HOME/ddl (~/.config/ddl).
    static QString defaultDirectory();

    explicit ConfigStore(const QString &directory = defaultDirectory());

    QString directory() const { return m_directory; }
    QString filePath() const;

    Status load();
    Status save() const;

    // The server used when neither --server nor DDL_SERVER names one.
    QString defaultServer() const;
    void setDefaultServer(const QString &serverUrl);

    // Lowercase hex SHA-256 of the certificate trusted on first use; empty when none.
    QByteArray pinnedFingerprint(const QString &serverKey) const;
    void setPinnedFingerprint(const QString &serverKey, const QByteArray &sha256Hex);
    void removePinnedFingerprint(const QString &serverKey);

    // A CA certificate file remembered for the server (from --ca-cert at login); empty if none.
    QString caCertificate(const QString &serverKey) const;
    void setCaCertificate(const QString &serverKey, const QString &path);

private:
    QJsonObject serverEntry(const QString &serverKey) const;
    void setServerValue(const QString &serverKey, const QString &key, const QJsonValue &value);

    QString m_directory;
    QJsonObject m_root;
};

} // namespace ddl::cli
