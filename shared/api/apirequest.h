#pragma once

#include "apiresponse.h"

#include <QObject>
#include <QPointer>
#include <QSslError>
#include <QTimer>
#include <optional>

class QNetworkReply;

namespace ddl {

// One request to the server. Its result (response or error) is set once, then finished() is
// emitted; a request that outlives its timeout fails with code "timeout".
class ApiRequest : public QObject
{
    Q_OBJECT
public:
    ApiRequest(QNetworkReply *reply, const QByteArray &pinnedSha256, int timeoutMs,
               QObject *parent = nullptr);
    ~ApiRequest() override;

    bool isFinished() const { return m_result.has_value(); }
    const Result<ApiResponse> &result() const { return *m_result; }

    // Runs a local event loop until the request finishes. For command-line use only.
    const Result<ApiResponse> &waitForFinished();

    void abort();
    // For a response read as it arrives (log follow): bodyReceived() carries each piece of a
    // successful answer, and the final response's body holds none of it.
    void streamBody();
    // Bounds the bytes the network layer reads ahead of the caller (0: unbounded); with it the
    // socket is read only as fast as bodyReceived() is handled (TCP backpressure).
    void setReadBufferSize(qint64 bytes);
    // While the answer arrives (before finished()): its status and a header, 0 / empty before.
    int streamingStatus() const;
    QByteArray streamingHeader(const QByteArray &name) const;

signals:
    void finished();
    // Bytes of the request body handed to the network so far.
    void uploadProgress(qint64 sent, qint64 total);
    // The request went out on the connection (its body too): the server has it or will soon.
    void requestSent();
    void bodyReceived(const QByteArray &bytes);

private:
    void handleFinished();
    void handleSslErrors(const QList<QSslError> &errors);
    void finish(Result<ApiResponse> result);

    QPointer<QNetworkReply> m_reply;
    QByteArray m_pinnedSha256;
    QTimer m_timer;
    std::optional<Result<ApiResponse>> m_result;
    bool m_pinMismatch = false;
};

} // namespace ddl
