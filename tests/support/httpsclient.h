#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QSslSocket>

#include <functional>

// One keep-alive HTTP/1.1 connection over TLS, as a busy client holds it: one request at a time,
// the answer read by its Content-Length, the latency of each request measured from the first
// byte written to the last byte read. Written for the load test so that 300 connections cost
// the test process little; it reports what went wrong instead of retrying.
class HttpsClient : public QObject
{
    Q_OBJECT

public:
    struct Answer
    {
        int status = 0; // 0 when the request failed below HTTP
        QByteArray body;
        qint64 latencyUs = 0;
        QString error; // set when status is 0
    };
    using Callback = std::function<void(const Answer &)>;

    HttpsClient(quint16 port,
                const QList<QSslCertificate> &caCertificates,
                QObject *parent = nullptr);

    // Sends one request; callback runs once with its answer. The connection is opened on the
    // first request and kept; one that the server closed between requests is opened again.
    void send(const QByteArray &method,
              const QByteArray &path,
              const QByteArray &token,
              const QByteArray &body,
              Callback callback,
              const QByteArray &contentType = "application/json");
    // The same, waiting (in an event loop) for the answer; after timeoutMs, an Answer with an
    // error.
    Answer call(const QByteArray &method,
                const QByteArray &path,
                const QByteArray &token,
                const QByteArray &body = {},
                const QByteArray &contentType = "application/json",
                int timeoutMs = 30000);
    bool busy() const { return bool(m_callback); }
    int connects() const { return m_connects; }

private:
    void handleEncrypted();
    void handleReadyRead();
    void handleDisconnected();
    void handleErrors();
    void finish(Answer answer);
    void fail(const QString &message);

    QSslSocket m_socket;
    quint16 m_port;
    QByteArray m_request;
    QByteArray m_buffer;
    qsizetype m_headerEnd = -1;
    qsizetype m_contentLength = -1;
    bool m_closing = false; // the answer said "Connection: close"
    int m_status = 0;
    QElapsedTimer m_timer;
    Callback m_callback;
    int m_connects = 0;
};
