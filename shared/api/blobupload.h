#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include <QFile>
#include <QObject>
#include <optional>

namespace ddl {

// Uploads one file as a content-addressed blob through the resumable upload protocol
// (docs/api.md): create or resume the upload, then send chunks at the server's offset. A client
// killed half-way resumes on the next run, because the server keeps the unfinished upload under
// the same digest.
class BlobUpload : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 ChunkSize = 8 * 1024 * 1024;

    // sha256Hex may be empty: it is then computed from the file first.
    BlobUpload(ApiClient *client, const QString &filePath, const QString &sha256Hex = {},
               QObject *parent = nullptr);

    void start();
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
    void createUpload();
    void handleCreated();
    void sendNextChunk();
    void handleChunkAnswer();
    void fail(const Error &error);

    ApiClient *m_client;
    QString m_path;
    QString m_sha256;
    QString m_uploadId;
    QFile m_file;
    qint64 m_size = 0;
    qint64 m_offset = 0;
    qint64 m_skipped = 0;
    static constexpr int MaxRestarts = 5;
    int m_restarts = 0;
    ApiRequest *m_request = nullptr;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
