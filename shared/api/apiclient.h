#pragma once

#include "apirequest.h"

#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QSslCertificate>
#include <QUrl>
#include <QUrlQuery>

namespace ddl {

// How a client decides to trust the server: a CA file, or the SHA-256 fingerprint of the exact
// certificate (pinned on first use, as ssh does), or the system's CAs when neither is given.
struct ServerTrust
{
    QList<QSslCertificate> caCertificates;
    QByteArray pinnedSha256Hex;

    static Result<ServerTrust> fromCaFile(const QString &path);
};

// The typed entry point to a DDL server: builds authenticated requests against the base URL.
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

    ApiRequest *get(const QString &path, const QUrlQuery &query = {},
                    const QList<QPair<QByteArray, QByteArray>> &headers = {});
    ApiRequest *postJson(const QString &path, const QJsonObject &body,
                         const QUrlQuery &query = {});
    ApiRequest *sendBytes(const QByteArray &verb, const QString &path, const QByteArray &body,
                          const QUrlQuery &query = {},
                          const QList<QPair<QByteArray, QByteArray>> &headers = {});

    // Convenience for command-line use: send and wait.
    Result<ApiResponse> getSync(const QString &path, const QUrlQuery &query = {});
    Result<ApiResponse> postJsonSync(const QString &path, const QJsonObject &body,
                                     const QUrlQuery &query = {});

    // The requests the server's front serves itself (upload chunks, blob and artifact
    // downloads, log follow, register and login). They travel on connections of their own: the server hands a connection's
    // first control request to QtHttpServer for good, and a chunk sent after it on the same
    // connection would be buffered whole there.
    static bool isDataPlane(const QByteArray &verb, const QString &path,
                            const QUrlQuery &query = {});

private:
    QNetworkAccessManager &networkFor(const QByteArray &verb, const QString &path,
                                      const QUrlQuery &query);
    QNetworkRequest makeRequest(const QString &path, const QUrlQuery &query) const;
    ApiRequest *wrap(QNetworkReply *reply);

    QUrl m_baseUrl;
    ServerTrust m_trust;
    QString m_token;
    int m_timeoutMs = 30000;
    QNetworkAccessManager m_network;
    QNetworkAccessManager m_dataNetwork;
};

// Connects to the server and returns the certificate it presents, trusted or not, so that a
// client can show its fingerprint and pin it on first use.
Result<QSslCertificate> fetchServerCertificate(const QUrl &url, int timeoutMs = 10000);

// "AB:CD:..." form of a certificate's SHA-256 digest, as shown to people.
QString formatFingerprint(const QSslCertificate &certificate);

} // namespace ddl
