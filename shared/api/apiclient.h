#pragma once

#include "apirequest.h"
#include "logapi.h"

#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QSet>
#include <QSslCertificate>
#include <QUrl>
#include <QUrlQuery>

#include <memory>
#include <optional>

namespace ddl {

class DataConnectionPool;

// How a client decides to trust the server: a CA file, or the SHA-256 fingerprint of the exact
// certificate (pinned on first use, as ssh does), or the system's CAs when neither is given.
struct ServerTrust
{
    QList<QSslCertificate> caCertificates;
    QByteArray pinnedSha256Hex;

    static Result<ServerTrust> fromCaFile(const QString &path);
};

// Which jobs GET /v1/jobs lists: newest first, a page at a time, optionally of one state.
// What GET /v1/jobs is asked: the server filters, sorts and pages (docs/api.md).
struct JobListQuery
{
    int limit = 50;
    int offset = 0;
    QStringList states; // WAITING, RUNNING, ...; empty: every state
    QString name;       // the name contains it, or the uuid starts with it; empty: any job
    QString sort;       // submitted, name, state, priority, started, finished; empty: submitted
    QString order;      // asc or desc; empty: the sort key's own (newest, highest first; A to Z)
};

// What POST /v1/jobs sends: the normalised spec, the code package and the dataset (by the
// digest of its manifest, or by the name of one on the server), and the priority.
struct JobSubmit
{
    QJsonObject spec;
    QString packageSha256; // empty: no code (OpenPAI jobs only)
    QString packageCommit;
    QString datasetManifest;
    QString datasetName;
    std::optional<int> priority;
    bool allowUnschedulable = false; // queue it even when no registered worker could hold it

    QJsonObject toJson() const;
};

// A file the server serves by byte ranges (for RangeDownload): a job's artifact or a blob.
struct RemoteFile
{
    QString path;
    QUrlQuery query;

    static RemoteFile artifact(const QString &jobUuid, const QString &artifactPath);
    static RemoteFile blob(const QString &sha256);
};

// The client side of the DDL API: one typed call per endpoint (docs/api.md), each returning
// a request (owned by the caller) whose result is set once, then finished(), within a timeout.
// It holds the base URL, how the server is trusted and the signed-in user's access token.
class ApiClient : public QObject
{
    Q_OBJECT
public:
    explicit ApiClient(const QUrl &baseUrl, const ServerTrust &trust = {},
                       QObject *parent = nullptr);

    QUrl baseUrl() const { return m_baseUrl; }
    void setBearerToken(const QString &token) { m_token = token; }
    QString bearerToken() const { return m_token; }
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }
    // Kept-alive connections for bulk bytes (BlobUpload, RangeDownload), shared with their
    // worker threads.
    std::shared_ptr<DataConnectionPool> dataConnections();
    // The head of a data request carrying the access token: "VERB /path?query HTTP/1.1" and
    // headers, without the final line break (for DataConnection::request).
    QByteArray dataRequestHead(const QByteArray &verb,
                               const QString &path,
                               const QUrlQuery &query,
                               const QList<QPair<QByteArray, QByteArray>> &headers = {}) const;
    // A data request was answered 401: says so as an API request would (tokenRefused()).
    void reportRefusedToken() { emit tokenRefused(); }

    ApiRequest *get(const QString &path, const QUrlQuery &query = {},
                    const QList<QPair<QByteArray, QByteArray>> &headers = {});
    ApiRequest *postJson(const QString &path, const QJsonObject &body,
                         const QUrlQuery &query = {});
    ApiRequest *sendBytes(const QByteArray &verb, const QString &path, const QByteArray &body,
                          const QUrlQuery &query = {},
                          const QList<QPair<QByteArray, QByteArray>> &headers = {});

    // Server and account. The auth calls never carry the access token.
    ApiRequest *version();
    ApiRequest *registerUser(const QString &email, const QString &password);
    ApiRequest *login(const QString &email, const QString &password);
    ApiRequest *refreshTokens(const QString &refreshToken);

    // Jobs.
    ApiRequest *submitJob(const JobSubmit &job);
    ApiRequest *listJobs(const JobListQuery &query);
    ApiRequest *job(const QString &uuid);
    ApiRequest *cancelJob(const QString &uuid);
    // A page of one task's log; the answer's headers parse with LogApi::parsePage.
    ApiRequest *readLog(const QString &uuid, const LogRead &read);
    ApiRequest *searchLog(const QString &uuid, const LogSearchRequest &search);
    ApiRequest *artifacts(const QString &uuid);
    // The CPU, memory and GPU series of each task of the job's current attempt; the answer's
    // "tasks" read with TaskUtilisation::fromJson.
    ApiRequest *jobUtilisation(const QString &uuid);
    // Bytes first..last of a file (HTTP Range); for whole files use RangeDownload.
    ApiRequest *readRange(const RemoteFile &file, qint64 first, qint64 last);

    // Datasets, blobs and uploads, workers.
    ApiRequest *datasets();
    ApiRequest *dataset(const QString &name);
    ApiRequest *createDataset(const QString &name, const QString &manifestSha256);
    ApiRequest *deleteDataset(const QString &name);
    // The user's images (ddl://NAME), each an OCI layout uploaded as a dataset manifest.
    ApiRequest *images();
    ApiRequest *createImage(const QString &name, const QString &manifestSha256);
    ApiRequest *deleteImage(const QString &name);
    ApiRequest *missingBlobs(const QStringList &sha256);
    // The digests a missingBlobs() answer names.
    static QSet<QString> missingIn(const QJsonObject &answer);
    // sha256 empty: an upload whose digest a later chunk names (DDL-Sha256, docs/api.md).
    ApiRequest *createUpload(qint64 size, const QString &sha256);
    ApiRequest *uploadState(const QString &uploadId);
    ApiRequest *abandonUpload(const QString &uploadId);
    // Many small blobs in one body (BlobBatchUpload's format).
    ApiRequest *storeBlobs(const QByteArray &batch);
    ApiRequest *workers();
    // One worker's machine over time (its "id" in workers()); reads with WorkerUtilisation.
    ApiRequest *workerUtilisation(const QString &workerId);
    // A worker's contribution ledger (its owner, or the worker with its own token); reads with
    // WorkerLedger::fromJson.
    ApiRequest *workerLedger(const QString &workerId);
    // The signed-in owner's workers' ledgers and their sum; reads with OwnerLedger::fromJson.
    ApiRequest *ownerLedger();

signals:
    // A request that carried the access token was answered 401: the token must be refreshed.
    void tokenRefused();

public:
    // Convenience for command-line use: send and wait.
    Result<ApiResponse> getSync(const QString &path, const QUrlQuery &query = {});
    Result<ApiResponse> postJsonSync(const QString &path, const QJsonObject &body,
                                     const QUrlQuery &query = {});

private:
    QNetworkRequest makeRequest(const QString &path, const QUrlQuery &query) const;
    ApiRequest *wrap(QNetworkReply *reply);
    ApiRequest *postAuth(const QString &path, const QJsonObject &body);

    QUrl m_baseUrl;
    ServerTrust m_trust;
    QString m_token;
    int m_timeoutMs = 30000;
    QNetworkAccessManager m_network;
    std::shared_ptr<DataConnectionPool> m_dataConnections;
};

// Connects to the server and returns the certificate it presents, trusted or not, so that a
// client can show its fingerprint and pin it on first use.
Result<QSslCertificate> fetchServerCertificate(const QUrl &url, int timeoutMs = 10000);

// "AB:CD:..." form of a certificate's SHA-256 digest, as shown to people.
QString formatFingerprint(const QSslCertificate &certificate);

} // namespace ddl
