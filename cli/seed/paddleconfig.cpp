#include "paddleconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include <yaml-cpp/yaml.h>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString PaddleConfig::defaultPath()
{
    return QDir::homePath() + u"/.paddle/config"_s;
}

static Error invalid(const QString &path, const QString &message)
{
    return Error::make(ErrorCode::InvalidConfig, path + u": "_s + message, u"config"_s);
}

static QString scalar(const YAML::Node &node)
{
    return node && node.IsScalar() ? QString::fromStdString(node.as<std::string>()).trimmed()
                                   : QString();
}

Result<PaddleConfig> PaddleConfig::parse(const QByteArray &yaml, const QString &path)
{
    YAML::Node root;
    try {
        root = YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return invalid(path,
                       tr("not YAML (line %1, column %2: %3); write it as the Paddle client's "
                          "config: apiVersion: v1, paddleServer: https://HOST:PORT, username: "
                          "EMAIL")
                           .arg(e.mark.line + 1)
                           .arg(e.mark.column + 1)
                           .arg(QString::fromStdString(e.msg)));
    }
    PaddleConfig config;
    config.path = path;
    if (root.IsNull())
        return config;
    if (!root.IsMap())
        return invalid(path, tr("expected keys such as apiVersion, paddleServer and username"));

    const QString apiVersion = scalar(root["apiVersion"]);
    if (!apiVersion.isEmpty() && apiVersion != u"v1"_s) {
        return invalid(path,
                       tr("apiVersion is '%1'; this client reads apiVersion: v1").arg(apiVersion));
    }
    QString serverKey;
    for (const char *key : {"paddleServer", "server", "jobServer"}) {
        const QString value = scalar(root[key]);
        if (value.isEmpty())
            continue;
        if (!config.server.isEmpty() && value != config.server) {
            return invalid(path,
                           tr("%1 and %2 name different servers; keep one")
                               .arg(serverKey, QLatin1String(key)));
        }
        config.server = value;
        serverKey = QLatin1String(key);
    }
    config.username = scalar(root["username"]);
    bool password = root["password"].IsDefined();
    if (root["dockerRegistry"].IsDefined()) {
        config.notes << tr("%1: dockerRegistry is accepted, but no registry is contacted here; "
                           "workers find images themselves")
                            .arg(path);
    }

    if (const YAML::Node centers = root["datacenters"]; centers.IsDefined()) {
        if (!centers.IsSequence())
            return invalid(path, tr("datacenters must be a list of {name, username, endpoint}"));
        const QString current = scalar(root["current-datacenter"]);
        QStringList names;
        bool found = false;
        for (const YAML::Node &center : centers) {
            const QString name = scalar(center["name"]);
            names << name;
            if (name != current && !(current.isEmpty() && centers.size() == 1))
                continue;
            found = true;
            if (config.server.isEmpty())
                config.server = scalar(center["endpoint"]);
            if (config.username.isEmpty())
                config.username = scalar(center["username"]);
            password = password || center["password"].IsDefined();
        }
        if (!found) {
            return invalid(
                path,
                current.isEmpty()
                    ? tr("current-datacenter is missing; name one of %1").arg(names.join(u", "_s))
                    : tr("current-datacenter is %1, but datacenters has only %2")
                          .arg(current, names.join(u", "_s)));
        }
        serverKey = u"endpoint"_s;
    }
    if (password) {
        config.notes << tr("%1: the password is not used: sign in once with paddle login (or "
                           "ddlcli login); the session is kept and refreshed")
                            .arg(path);
    }
    if (!config.server.isEmpty()) {
        const QUrl url(config.server);
        if (url.scheme() == u"http"_s) {
            return invalid(path,
                           tr("%1 is %2, but DDL servers speak HTTPS only; write https://%3")
                               .arg(serverKey, config.server, url.authority()));
        }
    }
    return config;
}

Result<std::optional<PaddleConfig>> PaddleConfig::load(const QString &path)
{
    if (!QFileInfo::exists(path))
        return std::optional<PaddleConfig>();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return invalid(path, tr("cannot be read: %1").arg(file.errorString()));
    Result<PaddleConfig> config = parse(file.readAll(), path);
    if (!config)
        return config.error();
    return std::optional<PaddleConfig>(*config);
}

} // namespace ddl::cli
