#include "serverconfig.h"

#include <QFile>
#include <yaml-cpp/yaml.h>

namespace ddl::server {

Status ServerConfig::setListen(const QString &hostPort)
{
    const int colon = hostPort.lastIndexOf(u':');
    bool ok = false;
    const uint port = colon >= 0 ? hostPort.mid(colon + 1).toUInt(&ok) : 0;
    QString host = colon >= 0 ? hostPort.left(colon) : QString();
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    QHostAddress address = host.isEmpty() ? QHostAddress(QHostAddress::Any) : QHostAddress(host);
    if (host == QLatin1String("localhost"))
        address = QHostAddress::LocalHost;
    if (!ok || port > 65535 || address.isNull()) {
        return Error::make(ErrorCode::InvalidConfig,
                           QStringLiteral("listen must be HOST:PORT with a numeric address, e.g. "
                                          "127.0.0.1:8443 or 0.0.0.0:8443; got \"%1\"")
                               .arg(hostPort),
                           QStringLiteral("listen"));
    }
    listenAddress = address;
    listenPort = quint16(port);
    return Ok{};
}

Result<ServerConfig> ServerConfig::fromYamlFile(const QString &path)
{
    const auto bad = [&](const QString &message) {
        return Error::make(ErrorCode::InvalidConfig, path + QStringLiteral(": ") + message);
    };
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return bad(file.errorString());
    ServerConfig config;
    try {
        const YAML::Node root = YAML::Load(file.readAll().toStdString());
        if (!root.IsMap() && !root.IsNull())
            return bad(QStringLiteral("the file must hold a mapping of settings"));
        for (const auto &entry : root) {
            const QString key = QString::fromStdString(entry.first.as<std::string>());
            const QString text = QString::fromStdString(entry.second.as<std::string>());
            if (key == QLatin1String("data_dir")) {
                config.dataDir = text;
            } else if (key == QLatin1String("database")) {
                config.database = text;
            } else if (key == QLatin1String("listen")) {
                if (Status set = config.setListen(text); !set)
                    return bad(set.error().message);
            } else if (key == QLatin1String("tls_cert")) {
                config.tlsCert = text;
            } else if (key == QLatin1String("tls_key")) {
                config.tlsKey = text;
            } else if (key == QLatin1String("worker_timeout_seconds")) {
                config.workerTimeoutSeconds = entry.second.as<int>();
            } else if (key == QLatin1String("max_blob_bytes")) {
                config.maxBlobBytes = entry.second.as<long long>();
            } else if (key == QLatin1String("checkpoint_max_bytes")) {
                config.checkpointMaxBytes = std::max(0LL, entry.second.as<long long>());
            } else if (key == QLatin1String("utilisation_samples_per_task")) {
                config.utilisationSamplesPerTask = std::max(10, entry.second.as<int>());
            } else if (key == QLatin1String("utilisation_samples_per_worker")) {
                config.utilisationSamplesPerWorker = std::max(10, entry.second.as<int>());
            } else if (key == QLatin1String("canaries")) {
                config.canaries = entry.second.as<bool>();
            } else if (key == QLatin1String("canary_interval_hours")) {
                config.canaryIntervalHours = entry.second.as<double>();
                if (!(config.canaryIntervalHours > 0))
                    return bad(QStringLiteral("canary_interval_hours must be more than 0"));
            } else if (key == QLatin1String("canary_deadline_minutes")) {
                config.canaryDeadlineMinutes = entry.second.as<double>();
                if (!(config.canaryDeadlineMinutes > 0))
                    return bad(QStringLiteral("canary_deadline_minutes must be more than 0"));
            } else {
                return bad(QStringLiteral("unknown setting %1; known: data_dir, database, listen, "
                                          "tls_cert, tls_key, worker_timeout_seconds, "
                                          "max_blob_bytes, utilisation_samples_per_task, "
                                          "utilisation_samples_per_worker, "
                                          "checkpoint_max_bytes, canaries, canary_interval_hours, "
                                          "canary_deadline_minutes")
                               .arg(key));
            }
        }
    } catch (const YAML::Exception &error) {
        return bad(QString::fromStdString(error.what()));
    }
    return config;
}

} // namespace ddl::server
