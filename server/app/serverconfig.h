#pragma once

#include "core/result.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace ddl::server {

// Every setting of ddl-server in one typed place. Read from a YAML file (--config), then
// overridden by command-line flags.
struct ServerConfig
{
    QString dataDir;
    // postgresql://... for a PostgreSQL store (several servers may share it); empty: the SQLite
    // file in dataDir.
    QString database;
    QHostAddress listenAddress = QHostAddress::LocalHost;
    quint16 listenPort = 8443;
    QString tlsCert;
    QString tlsKey;
    int workerTimeoutSeconds = 20;
    qint64 maxBlobBytes = 64LL * 1024 * 1024 * 1024;
    // Utilisation samples kept per task and per worker's machine (then thinned).
    int utilisationSamplesPerTask = 1000;
    int utilisationSamplesPerWorker = 20000;
    // The most one task's checkpoint may hold (docs/checkpoints.md).
    qint64 checkpointMaxBytes = 10LL * 1024 * 1024 * 1024;

    // Known-answer canary jobs check each worker before its first task and at random later
    // (docs/trust.md). Off by default: a private server of one's own machines needs none; a
    // public one, where strangers enroll workers, should turn them on.
    bool canaries = false;
    // A verified worker's next canary comes between 0.5 and 1.5 times this after its last.
    double canaryIntervalHours = 24;
    // A canary not judged this long after it was created fails (docs/trust.md).
    double canaryDeadlineMinutes = 15;

    // Parses the YAML keys data_dir, database, listen, tls_cert, tls_key, worker_timeout_seconds,
    // max_blob_bytes, utilisation_samples_per_task, utilisation_samples_per_worker,
    // checkpoint_max_bytes, canaries, canary_interval_hours, canary_deadline_minutes; unknown
    // keys are errors.
    static Result<ServerConfig> fromYamlFile(const QString &path);
    // "HOST:PORT", "[v6]:PORT" or ":PORT".
    Status setListen(const QString &hostPort);
};

} // namespace ddl::server
