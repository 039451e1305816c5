#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include <QFile>
#include <QObject>
#include <optional>

namespace ddl {

// Downloads one server file by byte ranges into DEST.part, resuming from what a previous run left
// there, then verifies the digest (when known) and renames it to DEST. Each range is written to
// the part file as it arrives, so memory stays bounded whatever the range's size, and a client
// killed mid-range keeps what it had.
class RangeDownload : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 RangeSize = 1LL << 30;

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
    void complete();
    void fail(const Error &error);

    ApiClient *m_client;
    QString m_path;
    QUrlQuery m_query;
    QString m_destination;
    QString m_expectedSha256;
    QFile m_part;
    qint64 m_total = -1;
    bool m_rangeChecked = false; // the current answer's status and range were looked at
    qint64 m_rangeBytes = 0;     // bytes the current answer brought
    ApiRequest *m_request = nullptr;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
