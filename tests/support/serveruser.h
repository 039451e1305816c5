#pragma once

#include "api/apiclient.h"
#include "core/result.h"
#include "wire/jobstate.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QUrl>
#include <memory>

// A user of a running ddl-server, through its public API over TLS (docs/api.md): registers and
// logs in, uploads blobs with BlobUpload, submits jobs, and reads their state, logs and outputs.
// Every call waits for its answer.
class ServerUser
{
public:
    // caFile: the server's certificate; scratchDir: where uploads are staged as files.
    ServerUser(const QUrl &url, const QString &caFile, const QString &scratchDir);

    ddl::Status registerAndLogin(const QString &email);
    // The blob's digest once it is on the server.
    ddl::Result<QString> upload(const QByteArray &bytes);
    // datasetSha256 empty: a job without a dataset. Returns the job's uuid.
    ddl::Result<QString> submit(const QJsonObject &spec,
                                const QString &packageSha256,
                                const QString &datasetSha256 = {});
    // dataset: {"manifest": sha256} or {"name": n} (docs/api.md). Returns the job's uuid.
    ddl::Result<QString> submitWithDataset(const QJsonObject &spec,
                                           const QString &packageSha256,
                                           const QJsonObject &dataset);
    // Uploads each file of folder and then its manifest (DatasetManifest::scan) as blobs, as
    // ddlcli does; returns the manifest's digest.
    ddl::Result<QString> uploadDataset(const QString &folder);
    ddl::Status cancel(const QString &uuid);

    // GET /v1/jobs/<uuid> (with its tasks); empty, with a warning, when it fails.
    QJsonObject job(const QString &uuid);
    QString jobState(const QString &uuid) { return job(uuid).value(u"state").toString(); }
    // The tasks of the job's current attempt, by index.
    QJsonArray tasks(const QString &uuid);
    // The whole log the server holds for the task, read by offsets; stream: "stdout" or
    // "stderr" for one stream of it, empty for the merged log.
    QByteArray log(const QString &uuid, qint64 taskId, const QString &stream = {});
    QJsonArray artifacts(const QString &uuid);
    QByteArray artifact(const QString &uuid, const QString &path);

private:
    std::unique_ptr<ddl::ApiClient> m_client;
    QString m_scratchDir;
};

// Registers email (with password) and logs it in through client: the access token, which client
// now sends.
ddl::Result<QString> registerAndLogIn(ddl::ApiClient &client,
                                      const QString &email,
                                      const QString &password = QStringLiteral("correct horse 42"));
// A new account on the server at url, logged in: its own client, and the access token in *token;
// null, with a warning that says why, when registering or logging in failed.
std::unique_ptr<ddl::ApiClient> loggedInClient(const QUrl &url,
                                               const ddl::ServerTrust &trust,
                                               const QString &email,
                                               QString *token = nullptr);

// A wire spec (resources/jobspec.schema.json) of one task role "worker". kind "ddl" runs main.py
// of the package; kind "openpai" runs command.
QJsonObject jobSpec(const QString &kind,
                    const QString &name,
                    int taskNumber = 1,
                    int gpuNumber = 0,
                    const QString &command = {});
