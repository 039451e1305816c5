#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include "packaging/datasetmanifest.h"

#include <QHash>
#include <QObject>
#include <memory>
#include <optional>

namespace ddl {

class FileHashCache;
class RangeDownload;

// Fetches a named dataset into a folder: reads its manifest, skips files already there with
// the right size and digest, and downloads the rest (a few at once, each resumable from its
// .part file and verified). Every path is checked to stay inside the destination.
class DatasetDownload : public QObject
{
    Q_OBJECT
public:
    static constexpr int FilesAtOnce = 8;

    DatasetDownload(ApiClient *client, const QString &name, const QString &destination,
                    QObject *parent = nullptr);
    ~DatasetDownload() override;

    void start();
    bool isFinished() const { return m_result.has_value(); }
    // The destination folder once every file is there and verified.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();

    int filesFetched() const { return m_fetched; }
    int filesKept() const { return m_kept; }

signals:
    void progress(const ddl::TransferProgress &progress);
    void finished();

private:
    void handleManifest(ApiRequest *request);
    void fetchFiles();
    void reportProgress();
    void fail(const Error &error);

    ApiClient *m_client;
    QString m_name;
    QString m_destination;
    QList<ManifestFile> m_toFetch;
    qsizetype m_next = 0;
    qint64 m_bytesToFetch = 0;
    qint64 m_bytesDone = 0;
    QHash<RangeDownload *, qint64> m_running;
    std::unique_ptr<FileHashCache> m_hashCache;
    int m_fetched = 0;
    int m_kept = 0;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
