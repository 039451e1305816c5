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
//
// Given no digest, a file of at least ChunkSize that the local hash cache (FileHashCache) does not
// know is not hashed first: the upload is created without a digest and sending starts at once,
// while another thread hashes the file (SHA-256 runs ahead of the wire). Once the digest is known
// the server is asked whether the caller already has that blob: if so, the upload is abandoned
// (DELETE) and finishes with the digest; otherwise the next chunk names it (DDL-Sha256), and the
// last chunk waits for it. Smaller files, and files the cache knows, are hashed first. Such an
// upload's id is recorded beside the hash cache until it ends, so a run stopped before the digest
// reached the server goes on under the same id.
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

    // The file of the local hash cache (FileHashCache); empty: the user's default.
    void setHashCachePath(const QString &path) { m_hashCachePath = path; }
    // The caller hashes the file itself and hands the digest over with provideDigest() (a
    // folder scan): start() creates the upload without a digest and sends at once.
    // resumeId: an upload an earlier run began for this file (FileHashCache::pendingUpload).
    void setDigestComesLater(const QString &resumeId = {})
    {
        m_digestComesLater = true;
        m_resumeId = resumeId;
    }
    void provideDigest(const ddl::Result<QString> &digest);
    void start();
    void cancel();
    // After digestChecked: the blob will be on the server anyway (another path with the same
    // bytes is being sent): the upload is given up and finishes, deduplicated(), with its digest.
    void abandon();
    bool isFinished() const { return m_result.has_value(); }
    // The blob's digest once it is on the server.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();
    // Bytes the server already had when this upload started (resume or deduplication).
    qint64 skippedBytes() const { return m_skipped; }
    // The server's id of the upload, once created (empty when the blob was there already).
    QString uploadId() const { return m_uploadId; }
    // Sending began before the digest was known and the caller turned out to own the blob
    // already: the upload was abandoned, what was sent is dropped.
    bool deduplicated() const { return m_deduplicated; }
    // Bytes of the file this upload handed to the connection (chunks cut short included).
    qint64 bytesSent() const { return m_bytesSent; }

signals:
    void progress(const ddl::TransferProgress &progress);
    // Sending began without a digest; now the digest is known and so is whether the caller
    // already had that blob (then the upload finishes at once, deduplicated()).
    void digestChecked(const QString &sha256, bool alreadyStored);
    void finished();

private:
    struct Sending;
    struct SendResult
    {
        std::optional<Error> error;
        qint64 acked = 0;
        bool complete = false;
    };

    void hashFile();
    void startWithoutDigest(const QString &resumeId);
    void recordPending(bool begun);
    void handleChecked(ApiRequest *request);
    void abandonUpload();
    void finishDeduplicated();
    // Done: the blob is on the server under m_sha256 (the record of a digest-less upload goes).
    void succeed();
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
    QString m_hashCachePath;
    bool m_digestComesLater = false;
    QString m_resumeId;
    bool m_resuming = false;      // asking where an earlier run's upload stands
    bool m_withoutDigest = false; // the upload was created without a digest
    bool m_digestChecked = false; // ... and the digest is known, the blob is not the caller's
    bool m_alreadyStored = false; // ... or it is: the upload is being abandoned
    bool m_deduplicated = false;
    bool m_askedState = false;           // the create request asks where an upload stands
    bool m_completeBeforeDigest = false; // ... and it was complete before this run hashed
    std::shared_ptr<std::atomic<bool>> m_hashAbort = std::make_shared<std::atomic<bool>>(false);
    QFutureWatcher<Result<QString>> m_hashing;
    ApiRequest *m_checkRequest = nullptr; // missing blobs, then the abandon
    QFile m_file;
    qint64 m_size = 0;
    qint64 m_acked = 0;    // durable on the server
    qint64 m_nextSend = 0; // where the next chunk starts
    qint64 m_skipped = 0;
    qint64 m_bytesSent = 0;
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
