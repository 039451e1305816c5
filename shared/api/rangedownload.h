#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include "core/sha256stream.h"

#include <QFile>
#include <QObject>
#include <optional>

namespace ddl {

// Downloads one server file by byte ranges into DEST.part, resuming from what a previous run left
// there, then verifies the digest (when known) and renames it to DEST. Each range is written to
// the part file as it arrives and hashed as it is written, with the network layer's read-ahead
// bounded (ReadBufferSize), so memory stays bounded whatever the size, a client killed mid-range
// keeps what it had, and the verification reads nothing again (only a resumed part's prefix).
class RangeDownload : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 RangeSize = 1LL << 30;
    // What the network layer may read ahead of the file: memory stays bounded per download.
    static constexpr qint64 ReadBufferSize = 1LL << 20;

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

    void start();
    bool isFinished() const { return m_result.has_value(); }
    // The destination path once it is complete and verified.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();

signals:
    void progress(const ddl::TransferProgress &progress);
    void finished();

private:
    void requestNextRange();
    void handleRange();
    Status writeBytes(const QByteArray &bytes);
    Status hashExistingPart();
    void truncatePart();
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
    qint64 m_total = -1;
    bool m_rangeChecked = false; // the current answer's status and range were looked at
    qint64 m_rangeBytes = 0;     // bytes the current answer brought
    ApiRequest *m_request = nullptr;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
