#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::cli {

// $HOME/.paddle/config, the PaddlePaddle client's config file, in either of the seed's forms:
//
//   apiVersion: v1                          the client design's form
//   paddleServer: https://ddl.example.org:8443   (also "server" or "jobServer")
//   username: ada@example.org               the DDL account the commands must run as
//   dockerRegistry: {domain, username, password}  accepted; no registry is contacted
//
//   datacenters:                            paddlecloud's form
//   - {name: prod, username: ..., password: ..., endpoint: https://...}
//   current-datacenter: prod
//
// A password is never used: DDL signs in with `paddle login` and keeps a refreshable session.
struct PaddleConfig
{
    Q_DECLARE_TR_FUNCTIONS(PaddleConfig)
public:
    QString path;
    QString server;   // empty when the file names none
    QString username; // empty when the file names none
    QStringList notes;

    // $HOME/.paddle/config.
    static QString defaultPath();
    // std::nullopt when there is no such file; an "invalid_config" error that names the file and
    // the key when it cannot be read as one of the two forms.
    static Result<std::optional<PaddleConfig>> load(const QString &path);
    static Result<PaddleConfig> parse(const QByteArray &yaml, const QString &path);
};

} // namespace ddl::cli
