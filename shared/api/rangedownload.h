#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include "core/sha256stream.h"

#include <QFile>
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

namespace ddl {

// Downloads one server file into DEST.part, resuming from what a previous run left there (HTTP
// Range), then verifies the digest (when known) and renames it to DEST. The bytes come on a
// worker thread over a kept-alive DataConnection, 256 KiB at a time: each piece is written to
// the part file and hashed as it arrives (a large file on a second thread, overlapping the
// receiving), so memory stays bounded whatever the size, a client killed mid-way keeps what it
// had, and the verification reads nothing again (only a resumed part's prefix, on that worker
// thread: the calling thread, a GUI's, never reads the disk).
class RangeDownload : public QObject
{
    Q_OBJECT
public:
    RangeDownload(ApiClient *client, const QString &path, const QUrlQuery &query,
                  const QString &destination, const QString &expectedSha256 = {},
                  QObject *parent = nullptr);
    RangeDownload(ApiClient *client,
                  const RemoteFile &file,
                  const QString &destination,
                  const QString &expectedSha256 = {},
                  QObject *parent = nullptr)
        : RangeDownload(client, file.path, file.query, destination, expectedSha256, parent)
    {
    }

    ~RangeDownload() override;

    void start();
    bool isFinished() const { return m_result.has_value(); }
    // The destination path once it is complete and verified.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();

signals:
    void progress(const ddl::TransferProgress &progress);
    void finished();

private:
    // Answers at least this long are hashed on a thread of their own (Sha256Pipeline).
    static constexpr qint64 PipelinedBytes = 4 * 1024 * 1024;
    struct Receiving;
    struct ReceiveResult
    {
        std::optional<Error> error;
        qint64 partSize = 0;
        qint64 total = -1;
        std::optional<Sha256Stream> hash;
    };
    void requestRest();
    void handleReceived();
    void reportProgress();
    void stopReceiving();
    void complete();
    void fail(const Error &error);

    ApiClient *m_client;
    QString m_path;
    QUrlQuery m_query;
    QString m_destination;
    QString m_expectedSha256;
    QFile m_part;
    qint64 m_partSize = 0;
    // The digest of the part file's bytes so far, added as they are written: the file is not
    // read again to verify it.
    std::optional<Sha256Stream> m_hash;
    // The part a previous run left is to be hashed first (on the receiving thread).
    bool m_hashPart = false;
    qint64 m_total = -1;
    bool m_restarted = false; // the part was emptied once after a 416
    std::shared_ptr<Receiving> m_receiving;
    QFutureWatcher<ReceiveResult> m_received;
    QTimer m_progressTimer;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
