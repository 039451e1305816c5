#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include <QFile>
#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

namespace ddl {

// Uploads one file as a content-addressed blob through the resumable upload protocol
// (docs/api.md): create or resume the upload (an API request), then send chunks at the server's
// offset from a worker thread over a kept-alive DataConnection that
// reads the file in 256 KiB pieces straight into TLS (memory stays bounded, the GUI thread only
// sees progress every 100 ms). A client killed half-way resumes on the next run (at most one
// chunk is sent again), because the server keeps the unfinished upload under the same digest.
class BlobUpload : public QObject
{
    Q_OBJECT
public:
    // A chunk is a multiple of ChunkSize: an eighth of the file, between ChunkSize and
    // MaxChunkSize. Each chunk ends with the server's fsync and a round trip (tens of ms on a
    // busy disk), so a large file goes in fewer, larger chunks; a killed client resends at most
    // one chunk.
    static constexpr qint64 ChunkSize = 16 * 1024 * 1024;
    static constexpr qint64 MaxChunkSize = 128 * 1024 * 1024;
    static qint64 chunkSizeFor(qint64 fileSize);

    // sha256Hex may be empty: it is then computed from the file first.
    BlobUpload(ApiClient *client, const QString &filePath, const QString &sha256Hex = {},
               QObject *parent = nullptr);
    ~BlobUpload() override;

    void start();
    void cancel();
    bool isFinished() const { return m_result.has_value(); }
    // The blob's digest once it is on the server.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();
    // Bytes the server already had when this upload started (resume or deduplication).
    qint64 skippedBytes() const { return m_skipped; }

signals:
    void progress(const ddl::TransferProgress &progress);
    void finished();

private:
    struct Sending;
    struct SendResult
    {
        std::optional<Error> error;
        qint64 acked = 0;
        bool complete = false;
    };

    void createUpload();
    void handleCreated(ApiRequest *request);
    void sendChunks();
    void handleSent();
    void stopSending();
    void reportProgress();
    void fail(const Error &error);

    ApiClient *m_client;
    QString m_path;
    QString m_sha256;
    QString m_uploadId;
    QFile m_file;
    qint64 m_size = 0;
    qint64 m_acked = 0;    // durable on the server
    qint64 m_nextSend = 0; // where the next chunk starts
    qint64 m_skipped = 0;
    static constexpr int MaxRestarts = 5;
    int m_restarts = 0;
    ApiRequest *m_createRequest = nullptr;
    std::shared_ptr<Sending> m_sending;
    QFutureWatcher<SendResult> m_sent;
    QTimer m_progressTimer;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
