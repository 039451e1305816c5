#include "httpsclient.h"

#include <QEventLoop>
#include <QSslConfiguration>
#include <QTimer>

using namespace Qt::StringLiterals;

HttpsClient::HttpsClient(quint16 port,
                         const QList<QSslCertificate> &caCertificates,
                         QObject *parent)
    : QObject(parent)
    , m_port(port)
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setCaCertificates(caCertificates);
    m_socket.setSslConfiguration(configuration);
    connect(&m_socket, &QSslSocket::encrypted, this, &HttpsClient::handleEncrypted);
    connect(&m_socket, &QSslSocket::readyRead, this, &HttpsClient::handleReadyRead);
    connect(&m_socket, &QSslSocket::disconnected, this, &HttpsClient::handleDisconnected);
    connect(&m_socket, &QSslSocket::errorOccurred, this, &HttpsClient::handleErrors);
    connect(&m_socket, &QSslSocket::sslErrors, this, &HttpsClient::handleErrors);
}

HttpsClient::Answer HttpsClient::call(const QByteArray &method,
                                      const QByteArray &path,
                                      const QByteArray &token,
                                      const QByteArray &body,
                                      const QByteArray &contentType,
                                      int timeoutMs)
{
    Answer result;
    bool done = false;
    QEventLoop loop;
    send(
        method,
        path,
        token,
        body,
        [&](const Answer &answer) {
            result = answer;
            done = true;
            loop.quit();
        },
        contentType);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!done)
        loop.exec();
    if (!done)
        result.error = u"no answer in %1 ms"_s.arg(timeoutMs);
    return result;
}

void HttpsClient::send(const QByteArray &method,
                       const QByteArray &path,
                       const QByteArray &token,
                       const QByteArray &body,
                       Callback callback,
                       const QByteArray &contentType)
{
    Q_ASSERT(!m_callback);
    m_callback = std::move(callback);
    m_request = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n";
    if (!token.isEmpty())
        m_request += "Authorization: Bearer " + token + "\r\n";
    if (!body.isEmpty() || method != "GET")
        m_request += "Content-Type: " + contentType +
                     "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    m_request += "\r\n" + body;
    m_buffer.clear();
    m_headerEnd = -1;
    m_contentLength = -1;
    m_closing = false;
    m_status = 0;
    m_timer.start();
    if (m_socket.state() == QAbstractSocket::ConnectedState && m_socket.isEncrypted()) {
        m_socket.write(m_request);
        return;
    }
    if (m_socket.state() != QAbstractSocket::UnconnectedState)
        m_socket.abort();
    ++m_connects;
    m_socket.connectToHostEncrypted(u"127.0.0.1"_s, m_port);
}

void HttpsClient::handleEncrypted()
{
    if (m_callback)
        m_socket.write(m_request);
}

void HttpsClient::handleReadyRead()
{
    m_buffer += m_socket.readAll();
    if (!m_callback)
        return fail(u"bytes arrived with no request outstanding"_s);
    if (m_headerEnd < 0) {
        m_headerEnd = m_buffer.indexOf("\r\n\r\n");
        if (m_headerEnd < 0)
            return;
        const QList<QByteArray> lines = m_buffer.left(m_headerEnd).split('\n');
        const QList<QByteArray> statusLine = lines.value(0).split(' ');
        m_status = statusLine.value(1).toInt();
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            if (colon > 0 && name == "content-length")
                m_contentLength = line.mid(colon + 1).trimmed().toLongLong();
            if (colon > 0 && name == "connection")
                m_closing = line.mid(colon + 1).trimmed().toLower() == "close";
        }
        if (m_status == 0 || m_contentLength < 0)
            return fail(u"an answer without a status or Content-Length: "_s +
                        QString::fromLatin1(m_buffer.left(200)));
    }
    const qsizetype bodyStart = m_headerEnd + 4;
    if (m_buffer.size() - bodyStart < m_contentLength)
        return;
    Answer answer;
    answer.status = m_status;
    answer.body = m_buffer.mid(bodyStart, m_contentLength);
    answer.latencyUs = m_timer.nsecsElapsed() / 1000;
    m_buffer.clear();
    // The server closes after this answer (a refused body it did not read): the next request
    // goes on a new connection.
    if (m_closing)
        m_socket.abort();
    finish(std::move(answer));
}

void HttpsClient::handleDisconnected()
{
    if (m_callback)
        fail(u"the server closed the connection before answering"_s);
}

void HttpsClient::handleErrors()
{
    if (m_callback)
        fail(u"socket error: "_s + m_socket.errorString());
}

void HttpsClient::fail(const QString &message)
{
    Answer answer;
    answer.error = message;
    answer.latencyUs = m_timer.nsecsElapsed() / 1000;
    m_socket.abort();
    finish(std::move(answer));
}

void HttpsClient::finish(Answer answer)
{
    Callback callback = std::move(m_callback);
    m_callback = nullptr;
    if (callback)
        callback(answer);
}
