#include "serveruser.h"

#include "api/blobupload.h"
#include "packaging/datasetmanifest.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

ServerUser::ServerUser(const QUrl &url, const QString &caFile, const QString &scratchDir)
    : m_scratchDir(scratchDir)
{
    ddl::ServerTrust trust;
    ddl::Result<ddl::ServerTrust> fromFile = ddl::ServerTrust::fromCaFile(caFile);
    if (fromFile)
        trust = *fromFile;
    else
        qWarning("cannot trust %s: %s", qPrintable(caFile), qPrintable(fromFile.error().message));
    m_client = std::make_unique<ddl::ApiClient>(url, trust);
    QDir().mkpath(m_scratchDir);
}

ddl::Result<QString>
registerAndLogIn(ddl::ApiClient &client, const QString &email, const QString &password)
{
    const QJsonObject credentials{{u"email"_s, email}, {u"password"_s, password}};
    ddl::Result<ddl::ApiResponse> registered =
        client.postJsonSync(u"/v1/auth/register"_s, credentials);
    if (!registered)
        return registered.error();
    ddl::Result<ddl::ApiResponse> login = client.postJsonSync(u"/v1/auth/login"_s, credentials);
    if (!login)
        return login.error();
    const QString token = login->json().value(u"access_token"_s).toString();
    client.setBearerToken(token);
    return token;
}

std::unique_ptr<ddl::ApiClient>
loggedInClient(const QUrl &url, const ddl::ServerTrust &trust, const QString &email, QString *token)
{
    auto client = std::make_unique<ddl::ApiClient>(url, trust);
    ddl::Result<QString> access = registerAndLogIn(*client, email);
    if (!access) {
        qWarning("cannot log in %s: %s", qPrintable(email), qPrintable(access.error().message));
        return nullptr;
    }
    if (token)
        *token = *access;
    return client;
}

ddl::Status ServerUser::registerAndLogin(const QString &email)
{
    ddl::Result<QString> token = registerAndLogIn(*m_client, email, u"correct horse battery"_s);
    if (!token)
        return token.error();
    return ddl::Ok{};
}

ddl::Result<QString> ServerUser::upload(const QByteArray &bytes)
{
    const QString path =
        QDir(m_scratchDir)
            .filePath(QString::fromLatin1(
                QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot write "_s + path);
    file.close();
    ddl::BlobUpload upload(m_client.get(), path);
    upload.start();
    return upload.waitForFinished();
}

ddl::Result<QString> ServerUser::submit(const QJsonObject &spec,
                                        const QString &packageSha256,
                                        const QString &datasetSha256)
{
    const QJsonObject body{
        {u"spec"_s, spec},
        {u"package"_s, QJsonObject{{u"sha256"_s, packageSha256}, {u"commit"_s, u"0123abcd"_s}}},
        {u"dataset"_s,
         datasetSha256.isEmpty() ? QJsonValue() : QJsonObject{{u"sha256"_s, datasetSha256}}}};
    ddl::Result<ddl::ApiResponse> submitted = m_client->postJsonSync(u"/v1/jobs"_s, body);
    if (!submitted)
        return submitted.error();
    return submitted->json().value(u"uuid"_s).toString();
}

ddl::Result<QString> ServerUser::submitWithDataset(const QJsonObject &spec,
                                                   const QString &packageSha256,
                                                   const QJsonObject &dataset)
{
    const QJsonObject body{
        {u"spec"_s, spec},
        {u"package"_s, QJsonObject{{u"sha256"_s, packageSha256}, {u"commit"_s, u"0123abcd"_s}}},
        {u"dataset"_s, dataset}};
    ddl::Result<ddl::ApiResponse> submitted = m_client->postJsonSync(u"/v1/jobs"_s, body);
    if (!submitted)
        return submitted.error();
    return submitted->json().value(u"uuid"_s).toString();
}

ddl::Result<QString> ServerUser::uploadDataset(const QString &folder)
{
    const ddl::Result<ddl::DatasetManifest> manifest = ddl::DatasetManifest::scan(folder);
    if (!manifest)
        return manifest.error();
    for (const ddl::ManifestFile &file : manifest->files()) {
        ddl::BlobUpload upload(m_client.get(), QDir(folder).filePath(file.path), file.sha256);
        upload.start();
        if (const ddl::Result<QString> &sent = upload.waitForFinished(); !sent)
            return sent.error();
    }
    return upload(manifest->toJson());
}

ddl::Status ServerUser::cancel(const QString &uuid)
{
    ddl::Result<ddl::ApiResponse> cancelled =
        m_client->postJsonSync(u"/v1/jobs/%1/cancel"_s.arg(uuid), {});
    if (!cancelled)
        return cancelled.error();
    return ddl::Ok{};
}

QJsonObject ServerUser::job(const QString &uuid)
{
    ddl::Result<ddl::ApiResponse> answer = m_client->getSync(u"/v1/jobs/"_s + uuid);
    if (!answer) {
        qWarning("GET job %s: %s", qPrintable(uuid), qPrintable(answer.error().message));
        return {};
    }
    return answer->json();
}

QJsonArray ServerUser::tasks(const QString &uuid)
{
    const QJsonObject current = job(uuid);
    const int attempt = current.value(u"attempt"_s).toInt();
    QJsonArray tasks;
    for (const QJsonValue &task : current.value(u"tasks"_s).toArray()) {
        if (task[u"attempt"_s].toInt() == attempt)
            tasks.append(task);
    }
    return tasks;
}

QByteArray ServerUser::log(const QString &uuid, qint64 taskId, const QString &stream)
{
    QByteArray log;
    for (;;) {
        QUrlQuery query;
        query.addQueryItem(u"task"_s, QString::number(taskId));
        if (!stream.isEmpty())
            query.addQueryItem(u"stream"_s, stream);
        query.addQueryItem(u"offset"_s, QString::number(log.size()));
        ddl::Result<ddl::ApiResponse> answer =
            m_client->getSync(u"/v1/jobs/%1/logs"_s.arg(uuid), query);
        if (!answer) {
            qWarning("GET log of task %lld: %s", taskId, qPrintable(answer.error().message));
            return log;
        }
        log += answer->body;
        if (answer->body.isEmpty() || log.size() >= answer->header("DDL-Log-Size").toLongLong())
            return log;
    }
}

QJsonArray ServerUser::artifacts(const QString &uuid)
{
    ddl::Result<ddl::ApiResponse> answer = m_client->getSync(u"/v1/jobs/%1/artifacts"_s.arg(uuid));
    if (!answer) {
        qWarning("GET artifacts of %s: %s", qPrintable(uuid), qPrintable(answer.error().message));
        return {};
    }
    return answer->json().value(u"files"_s).toArray();
}

QByteArray ServerUser::artifact(const QString &uuid, const QString &path)
{
    QUrlQuery query;
    query.addQueryItem(u"path"_s, path);
    ddl::Result<ddl::ApiResponse> answer =
        m_client->getSync(u"/v1/jobs/%1/artifacts/file"_s.arg(uuid), query);
    return answer ? answer->body : QByteArray();
}

QJsonObject jobSpec(
    const QString &kind, const QString &name, int taskNumber, int gpuNumber, const QString &command)
{
    QJsonObject role{{u"name"_s, u"worker"_s},
                     {u"taskNumber"_s, taskNumber},
                     {u"cpuNumber"_s, 1},
                     {u"memoryMB"_s, 512},
                     {u"gpuNumber"_s, gpuNumber}};
    if (!command.isEmpty())
        role.insert(u"command"_s, command);
    QJsonObject spec{{u"kind"_s, kind}, {u"jobName"_s, name}, {u"taskRoles"_s, QJsonArray{role}}};
    if (kind == u"openpai")
        spec.insert(u"image"_s, u"python:3.11"_s); // required by the schema; workers run bare
    return spec;
}
