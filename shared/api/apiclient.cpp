#include "apiclient.h"

#include "dataconnection.h"


#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QSslConfiguration>
#include <QSslSocket>

namespace ddl {

Result<ServerTrust> ServerTrust::fromCaFile(const QString &path)
{
    const QList<QSslCertificate> certificates = QSslCertificate::fromPath(path);
    if (certificates.isEmpty()) {
        return Error::make(ErrorCode::BadCaCert,
                           QStringLiteral("%1 holds no PEM certificate; pass the server's "
                                          "certificate or its CA (for a default server: "
                                          "DATA_DIR/tls/server.crt)")
                               .arg(path),
                           QStringLiteral("ca-cert"));
    }
    ServerTrust trust;
    trust.caCertificates = certificates;
    return trust;
}

ApiClient::ApiClient(const QUrl &baseUrl, const ServerTrust &trust, QObject *parent)
    : QObject(parent)
    , m_baseUrl(baseUrl)
    , m_trust(trust)
{
    m_network.setAutoDeleteReplies(false);
}

QNetworkRequest ApiClient::makeRequest(const QString &path, const QUrlQuery &query) const
{
    QUrl url = m_baseUrl;
    url.setPath(path);
    url.setQuery(query);
    QNetworkRequest request(url);
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setProtocol(QSsl::TlsV1_2OrLater);
    if (!m_trust.caCertificates.isEmpty())
        ssl.setCaCertificates(m_trust.caCertificates);
    request.setSslConfiguration(ssl);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setRawHeader("User-Agent", "ddl/" DDL_VERSION);
    if (!m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    return request;
}

std::shared_ptr<DataConnectionPool> ApiClient::dataConnections()
{
    if (!m_dataConnections) {
        DataConnection::Target target;
        target.host = m_baseUrl.host();
        target.port = quint16(m_baseUrl.port(443));
        target.trust = m_trust;
        target.timeoutMs = m_timeoutMs;
        m_dataConnections = std::make_shared<DataConnectionPool>(target);
    }
    return m_dataConnections;
}

QByteArray ApiClient::dataRequestHead(const QByteArray &verb,
                                      const QString &path,
                                      const QUrlQuery &query,
                                      const QList<QPair<QByteArray, QByteArray>> &headers) const
{
    QUrl url = m_baseUrl;
    url.setPath(path);
    url.setQuery(query);
    QByteArray head = verb + ' ' + url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority) +
                      " HTTP/1.1\r\nUser-Agent: ddl/" DDL_VERSION;
    if (!m_token.isEmpty())
        head += "\r\nAuthorization: Bearer " + m_token.toUtf8();
    for (const auto &[name, value] : headers)
        head += "\r\n" + name + ": " + value;
    return head;
}

ApiRequest *ApiClient::wrap(QNetworkReply *reply)
{
    auto *request = new ApiRequest(reply, m_trust.pinnedSha256Hex, m_timeoutMs, this);
    if (reply->request().hasRawHeader("Authorization")) {
        connect(request, &ApiRequest::finished, this, [this, request] {
            if (!request->result() && request->result().error().is(ErrorCode::Unauthorized))
                emit tokenRefused();
        });
    }
    return request;
}

ApiRequest *ApiClient::get(const QString &path, const QUrlQuery &query,
                           const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest request = makeRequest(path, query);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    return wrap(m_network.get(request));
}

ApiRequest *ApiClient::postJson(const QString &path, const QJsonObject &body,
                                const QUrlQuery &query)
{
    QNetworkRequest request = makeRequest(path, query);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    return wrap(m_network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
}

ApiRequest *ApiClient::sendBytes(const QByteArray &verb, const QString &path,
                                 const QByteArray &body, const QUrlQuery &query,
                                 const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest request = makeRequest(path, query);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      QByteArrayLiteral("application/octet-stream"));
    return wrap(m_network.sendCustomRequest(request, verb, body));
}

QJsonObject JobSubmit::toJson() const
{
    QJsonObject body{{QStringLiteral("spec"), spec}};
    if (priority)
        body.insert(QStringLiteral("priority"), *priority);
    if (allowUnschedulable)
        body.insert(QStringLiteral("allow_unschedulable"), true);
    body.insert(QStringLiteral("package"),
                packageSha256.isEmpty()
                    ? QJsonValue(QJsonValue::Null)
                    : QJsonValue(QJsonObject{{QStringLiteral("sha256"), packageSha256},
                                             {QStringLiteral("commit"), packageCommit}}));
    QJsonValue dataset(QJsonValue::Null);
    if (!datasetName.isEmpty())
        dataset = QJsonObject{{QStringLiteral("name"), datasetName}};
    else if (!datasetManifest.isEmpty())
        dataset = QJsonObject{{QStringLiteral("manifest"), datasetManifest}};
    body.insert(QStringLiteral("dataset"), dataset);
    return body;
}

RemoteFile RemoteFile::artifact(const QString &jobUuid, const QString &artifactPath)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("path"), artifactPath);
    return {QStringLiteral("/v1/jobs/") + jobUuid + QStringLiteral("/artifacts/file"), query};
}

RemoteFile RemoteFile::blob(const QString &sha256)
{
    return {QStringLiteral("/v1/blobs/") + sha256, {}};
}

ApiRequest *ApiClient::postAuth(const QString &path, const QJsonObject &body)
{
    QNetworkRequest request = makeRequest(path, {});
    request.setRawHeader("Authorization", QByteArray());
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    return wrap(m_network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
}

ApiRequest *ApiClient::version()
{
    return get(QStringLiteral("/v1/version"));
}

ApiRequest *ApiClient::registerUser(const QString &email, const QString &password)
{
    return postAuth(QStringLiteral("/v1/auth/register"),
                    {{QStringLiteral("email"), email}, {QStringLiteral("password"), password}});
}

ApiRequest *ApiClient::login(const QString &email, const QString &password)
{
    return postAuth(QStringLiteral("/v1/auth/login"),
                    {{QStringLiteral("email"), email}, {QStringLiteral("password"), password}});
}

ApiRequest *ApiClient::refreshTokens(const QString &refreshToken)
{
    return postAuth(QStringLiteral("/v1/auth/refresh"),
                    {{QStringLiteral("refresh_token"), refreshToken}});
}

ApiRequest *ApiClient::submitJob(const JobSubmit &job)
{
    return postJson(QStringLiteral("/v1/jobs"), job.toJson());
}

ApiRequest *ApiClient::listJobs(const JobListQuery &jobs)
{
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("limit"), QString::number(jobs.limit));
    query.addQueryItem(QStringLiteral("offset"), QString::number(jobs.offset));
    if (!jobs.states.isEmpty())
        query.addQueryItem(QStringLiteral("state"), jobs.states.join(u','));
    if (!jobs.name.isEmpty())
        query.addQueryItem(QStringLiteral("name"), jobs.name);
    if (!jobs.sort.isEmpty())
        query.addQueryItem(QStringLiteral("sort"), jobs.sort);
    if (!jobs.order.isEmpty())
        query.addQueryItem(QStringLiteral("order"), jobs.order);
    return get(QStringLiteral("/v1/jobs"), query);
}

ApiRequest *ApiClient::job(const QString &uuid)
{
    return get(QStringLiteral("/v1/jobs/") + uuid);
}

ApiRequest *ApiClient::cancelJob(const QString &uuid)
{
    return postJson(QStringLiteral("/v1/jobs/") + uuid + QStringLiteral("/cancel"), {});
}

ApiRequest *ApiClient::readLog(const QString &uuid, const LogRead &read)
{
    return get(LogApi::logsPath(uuid), LogApi::readQuery(read));
}

ApiRequest *ApiClient::searchLog(const QString &uuid, const LogSearchRequest &search)
{
    return get(LogApi::searchPath(uuid), LogApi::searchQuery(search));
}

ApiRequest *ApiClient::artifacts(const QString &uuid)
{
    return get(QStringLiteral("/v1/jobs/") + uuid + QStringLiteral("/artifacts"));
}

ApiRequest *ApiClient::jobUtilisation(const QString &uuid)
{
    return get(QStringLiteral("/v1/jobs/") + uuid + QStringLiteral("/utilisation"));
}

ApiRequest *ApiClient::readRange(const RemoteFile &file, qint64 first, qint64 last)
{
    return get(file.path,
               file.query,
               {{"Range", "bytes=" + QByteArray::number(first) + '-' + QByteArray::number(last)}});
}

ApiRequest *ApiClient::datasets()
{
    return get(QStringLiteral("/v1/datasets"));
}

ApiRequest *ApiClient::dataset(const QString &name)
{
    return get(QStringLiteral("/v1/datasets/") + name);
}

ApiRequest *ApiClient::createDataset(const QString &name, const QString &manifestSha256)
{
    return postJson(
        QStringLiteral("/v1/datasets"),
        {{QStringLiteral("name"), name}, {QStringLiteral("manifest_sha256"), manifestSha256}});
}

ApiRequest *ApiClient::deleteDataset(const QString &name)
{
    return sendBytes("DELETE", QStringLiteral("/v1/datasets/") + name, {});
}

ApiRequest *ApiClient::images()
{
    return get(QStringLiteral("/v1/images"));
}

ApiRequest *ApiClient::createImage(const QString &name, const QString &manifestSha256)
{
    return postJson(
        QStringLiteral("/v1/images"),
        {{QStringLiteral("name"), name}, {QStringLiteral("manifest_sha256"), manifestSha256}});
}

ApiRequest *ApiClient::deleteImage(const QString &name)
{
    return sendBytes("DELETE", QStringLiteral("/v1/images/") + name, {});
}

ApiRequest *ApiClient::missingBlobs(const QStringList &sha256)
{
    return postJson(QStringLiteral("/v1/blobs/missing"),
                    {{QStringLiteral("sha256"), QJsonArray::fromStringList(sha256)}});
}

QSet<QString> ApiClient::missingIn(const QJsonObject &answer)
{
    QSet<QString> missing;
    for (const QJsonValue &value : answer.value(QStringLiteral("missing")).toArray())
        missing.insert(value.toString());
    return missing;
}

ApiRequest *ApiClient::storeBlobs(const QByteArray &batch)
{
    return sendBytes("POST", QStringLiteral("/v1/blobs/batch"), batch);
}

ApiRequest *ApiClient::createUpload(qint64 size, const QString &sha256)
{
    QJsonObject body{{QStringLiteral("size"), size}};
    if (!sha256.isEmpty())
        body.insert(QStringLiteral("sha256"), sha256);
    return postJson(QStringLiteral("/v1/uploads"), body);
}

ApiRequest *ApiClient::uploadState(const QString &uploadId)
{
    return get(QStringLiteral("/v1/uploads/") + uploadId);
}

ApiRequest *ApiClient::abandonUpload(const QString &uploadId)
{
    return sendBytes("DELETE", QStringLiteral("/v1/uploads/") + uploadId, {});
}

ApiRequest *ApiClient::workers()
{
    return get(QStringLiteral("/v1/workers"));
}

ApiRequest *ApiClient::workerUtilisation(const QString &workerId)
{
    return get(QStringLiteral("/v1/workers/") + workerId + QStringLiteral("/utilisation"));
}

ApiRequest *ApiClient::workerLedger(const QString &workerId)
{
    return get(QStringLiteral("/v1/workers/") + workerId + QStringLiteral("/ledger"));
}

ApiRequest *ApiClient::ownerLedger()
{
    return get(QStringLiteral("/v1/ledger"));
}

Result<ApiResponse> ApiClient::getSync(const QString &path, const QUrlQuery &query)
{
    std::unique_ptr<ApiRequest> request(get(path, query));
    return request->waitForFinished();
}

Result<ApiResponse> ApiClient::postJsonSync(const QString &path, const QJsonObject &body,
                                            const QUrlQuery &query)
{
    std::unique_ptr<ApiRequest> request(postJson(path, body, query));
    return request->waitForFinished();
}

Result<QSslCertificate> fetchServerCertificate(const QUrl &url, int timeoutMs)
{
    QSslSocket socket;
    socket.setPeerVerifyMode(QSslSocket::QueryPeer);
    socket.connectToHostEncrypted(url.host(), quint16(url.port(443)));
    if (!socket.waitForEncrypted(timeoutMs)) {
        return Error::make(ErrorCode::Unreachable,
                           QStringLiteral("cannot open a TLS connection to %1: %2; check the URL "
                                          "and that ddl-server is running")
                               .arg(url.toString(), socket.errorString()));
    }
    const QSslCertificate certificate = socket.peerCertificate();
    socket.disconnectFromHost();
    return certificate;
}

QString formatFingerprint(const QSslCertificate &certificate)
{
    const QByteArray hex = certificate.digest(QCryptographicHash::Sha256).toHex().toUpper();
    QStringList pairs;
    for (int i = 0; i < hex.size(); i += 2)
        pairs << QString::fromLatin1(hex.mid(i, 2));
    return QStringLiteral("SHA256:") + pairs.join(u':');
}

} // namespace ddl
