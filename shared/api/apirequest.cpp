#include "apirequest.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslError>

namespace ddl {

ApiRequest::ApiRequest(QNetworkReply *reply, const QByteArray &pinnedSha256, int timeoutMs,
                       QObject *parent)
    : QObject(parent)
    , m_reply(reply)
    , m_pinnedSha256(pinnedSha256.toLower())
{
    connect(reply, &QNetworkReply::finished, this, &ApiRequest::handleFinished);
    connect(reply, &QNetworkReply::sslErrors, this, &ApiRequest::handleSslErrors);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        const QString url = m_reply ? m_reply->url().toString() : QString();
        if (m_reply)
            m_reply->abort();
        finish(Error::make(ErrorCode::Timeout,
                           QStringLiteral("no answer from %1 within %2 s; check that the server "
                                          "is running and reachable")
                               .arg(url)
                               .arg(m_timer.interval() / 1000)));
    });
    // Each byte that moves restarts the clock: the timeout is for silence, not for size.
    connect(reply, &QNetworkReply::uploadProgress, &m_timer, qOverload<>(&QTimer::start));
    connect(reply, &QNetworkReply::downloadProgress, &m_timer, qOverload<>(&QTimer::start));
    connect(reply, &QNetworkReply::uploadProgress, this, &ApiRequest::uploadProgress);
    connect(reply, &QNetworkReply::requestSent, this, &ApiRequest::requestSent);
    m_timer.start(timeoutMs);
}

ApiRequest::~ApiRequest()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

const Result<ApiResponse> &ApiRequest::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &ApiRequest::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void ApiRequest::streamBody()
{
    if (!m_reply)
        return;
    connect(m_reply, &QNetworkReply::readyRead, this, [this] {
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300)
            emit bodyReceived(m_reply->readAll());
    });
}

void ApiRequest::setReadBufferSize(qint64 bytes)
{
    if (m_reply)
        m_reply->setReadBufferSize(bytes);
}

int ApiRequest::streamingStatus() const
{
    return m_reply ? m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0;
}

QByteArray ApiRequest::streamingHeader(const QByteArray &name) const
{
    return m_reply ? m_reply->rawHeader(name) : QByteArray();
}

void ApiRequest::abort()
{
    if (m_reply)
        m_reply->abort();
    finish(Error::make(ErrorCode::Aborted, QStringLiteral("the request was cancelled")));
}

void ApiRequest::handleSslErrors(const QList<QSslError> &errors)
{
    if (!m_reply || m_pinnedSha256.isEmpty())
        return;
    const QSslCertificate peer = m_reply->sslConfiguration().peerCertificate();
    // A pinned fingerprint stands in for a CA: the exact certificate is trusted, nothing else.
    if (!peer.isNull() && peer.digest(QCryptographicHash::Sha256).toHex() == m_pinnedSha256)
        m_reply->ignoreSslErrors(errors);
    else
        m_pinMismatch = true;
}

static Error networkError(QNetworkReply *reply, bool pinMismatch)
{
    const QString url = reply->url().toString(QUrl::RemoveQuery);
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::TemporaryNetworkFailureError:
        return Error::make(ErrorCode::Unreachable,
                           QStringLiteral("cannot reach the server at %1 (%2); check the URL and "
                                          "that ddl-server is running")
                               .arg(url, reply->errorString()));
    case QNetworkReply::SslHandshakeFailedError:
        if (pinMismatch) {
            return Error::make(
                ErrorCode::CertificateChanged,
                QStringLiteral("the server at %1 presented a certificate that does not match the "
                               "pinned fingerprint; if the server's certificate was replaced on "
                               "purpose, remove the pin from ~/.config/ddl/config.json")
                    .arg(url));
        }
        return Error::make(ErrorCode::UntrustedCertificate,
                           QStringLiteral("the server at %1 is not trusted (%2); pass --ca-cert "
                                          "FILE or set DDL_CA_CERT")
                               .arg(url, reply->errorString()));
    default:
        return Error::make(
            ErrorCode::Network,
            QStringLiteral("request to %1 failed: %2").arg(url, reply->errorString()));
    }
}

void ApiRequest::handleFinished()
{
    if (!m_reply || isFinished())
        return;
    QNetworkReply *reply = m_reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        finish(networkError(reply, m_pinMismatch));
        return;
    }
    ApiResponse response;
    response.status = status;
    response.body = reply->readAll();
    response.headers = reply->rawHeaderPairs();
    if (status >= 200 && status < 300) {
        finish(std::move(response));
        return;
    }
    Error error = Error::fromJson(QJsonDocument::fromJson(response.body).object());
    if (error.code.isEmpty()) {
        error = Error::httpStatus(status,
                                  QStringLiteral("the server answered HTTP %1 for %2")
                                      .arg(status)
                                      .arg(reply->url().toString(QUrl::RemoveQuery)));
    }
    finish(std::move(error));
}

void ApiRequest::finish(Result<ApiResponse> result)
{
    if (isFinished())
        return;
    m_timer.stop();
    m_result = std::move(result);
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    emit finished();
}

} // namespace ddl
