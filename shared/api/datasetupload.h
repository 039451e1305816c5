#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include "packaging/datasetmanifest.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTemporaryDir>
#include <atomic>
#include <memory>
#include <optional>

namespace ddl {

class BatchBufferPool;
class BlobBatchUpload;
class BlobUpload;

// Puts a dataset folder on the server as a manifest of blobs: hashes the files (on a pool
// thread, so a GUI stays responsive), asks the server which blobs the user does not have yet,
// sends only those (a few files at once, each resumable: a cancelled upload goes on where it
// stopped; small files many to a request; what had to be hashed is sent while the rest is still
// being hashed; a large file the hash cache does not know starts before it is hashed), then the
// manifest, and with a name names the dataset (POST /v1/datasets); without
// one a job names it by the manifest's digest. The same folder uploaded again sends nothing; a
// folder with one changed file sends that file. A dry run stops once the plan is known.
class DatasetUpload : public QObject
{
    Q_OBJECT
public:
    static constexpr int FilesAtOnce = 8;
    // Requests of many small files (BlobBatchUpload) at once, beside the large files, so that
    // the next one is already there, received, when one is answered; sent two at a time, the
    // server sat idle while the next two crossed the network, and five went no faster than three
    // (docs/benchmarks.md). Each holds at most BatchBytes.
    static constexpr int BatchesAtOnce = 3;
    // Files hashed at once while the folder is scanned (no more than the machine's cores).
    static constexpr int MaxHashThreads = 4;
    // What a name names: a dataset (POST /v1/datasets), or an image whose folder is an OCI
    // layout (POST /v1/images; ddlcli image push).
    enum class Collection { Datasets, Images };

    DatasetUpload(ApiClient *client, const QString &folder, QObject *parent = nullptr);
    ~DatasetUpload() override;

    void setName(const QString &name) { m_name = name; }
    void setCollection(Collection collection) { m_collection = collection; }
    void setDryRun(bool dryRun) { m_dryRun = dryRun; }
    // The file of the local hash cache (FileHashCache); empty: the user's default.
    void setHashCachePath(const QString &path) { m_hashCachePath = path; }
    void start();
    void cancel();
    bool isFinished() const { return m_result.has_value(); }
    // The manifest's digest once it and every file are on the server.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();

    QString name() const { return m_name; }
    const DatasetManifest &manifest() const { return m_manifest; }
    int filesToSend() const { return m_filesToSend; }
    qint64 bytesToSend() const { return m_bytesToSend; }
    qint64 bytesOnServer() const { return m_manifest.totalSize() - m_bytesToSend; }
    // Files that had to be sent and were.
    QStringList uploadedFiles() const { return m_uploaded; }
    // Requests that carried many small files (BlobBatchUpload) and were stored.
    int batchesSent() const { return m_batchesSent; }
    // Bytes of files that travelled to the server, those of uploads given up included (a large
    // file sent while hashed that the server turned out to have).
    qint64 bytesOnWire() const { return m_bytesOnWire; }
    // Bytes read from the folder to hash it (0 when the hash cache knew every file).
    qint64 bytesHashed() const { return m_bytesHashed->load(); }
    // The server's answer naming the dataset or image (total_size, ...); empty without a name.
    QJsonObject dataset() const { return m_dataset; }

signals:
    void hashing(qint64 done, qint64 total);
    // What is left to send is known: the files and their bytes.
    void planned(const QStringList &paths, qint64 bytes);
    void progress(const ddl::TransferProgress &progress);
    void fileProgress(const QString &path, qint64 done, qint64 total);
    // The server had the first bytes of path from an interrupted upload: only the rest travels.
    void fileResumed(const QString &path, qint64 bytesAlreadySent);
    void fileSent(const QString &path);
    void finished();

private:
    void handleHashedEarly(const QList<ManifestFile> &files);
    void startBeforeHashed(const QString &path, qint64 size, const QString &resumeId);
    void handleHashedLate(const QString &path, const Result<QString> &digest);
    void handleScanned();
    void askPlan();
    BlobUpload *startFile(const ManifestFile &file, bool blind);
    void handleMissing(ApiRequest *request);
    void sendFiles();
    void sendBatches();
    void handleBatchSent(BlobBatchUpload *batch);
    void reportFileSent(const ManifestFile &file);
    void sendManifest();
    void nameDataset();
    void reportProgress();
    void fail(const Error &error);
    void succeed();

    QPointer<ApiClient> m_client;
    QString m_folder;
    QString m_name;
    Collection m_collection = Collection::Datasets;
    bool m_dryRun = false;
    QString m_hashCachePath;
    std::shared_ptr<std::atomic<qint64>> m_bytesHashed = std::make_shared<std::atomic<qint64>>(0);
    DatasetManifest m_manifest;
    QFutureWatcher<Result<DatasetManifest>> m_scan;
    QList<ManifestFile> m_toSend;         // the large files, one resumable upload each
    QList<QList<ManifestFile>> m_batches; // the small ones, many to a request
    qsizetype m_nextBatch = 0;
    QList<BlobBatchUpload *> m_runningBatches;
    std::shared_ptr<BatchBufferPool> m_batchBuffers;
    int m_batchesSent = 0;
    // Files that had to be hashed (not from the cache) are sent while the scan goes on: small ones
    // in full batches, a large one as soon as it is hashed, each group after a missing query of
    // its own. The plan (planned()) comes once the scan is done; what they did is told after it.
    bool m_planned = false;
    QSet<QString> m_sentEarly;               // digests whose sending started before the plan
    QHash<QString, QString> m_sentEarlyPath; // ... and the path each is sent from
    // Large files the cache did not know are sent while they are hashed (BlobUpload without a
    // digest): at most FilesAtOnce at a time (counted by the scan's thread and this one), and
    // the plan waits until each is known to be new to the server or not.
    std::shared_ptr<std::atomic<int>> m_blindRunning = std::make_shared<std::atomic<int>>(0);
    QHash<QString, BlobUpload *> m_blind; // by path, until its digest was checked
    QSet<QString> m_storedEarly;          // their digests the caller had: abandoned
    QSet<BlobUpload *> m_abandoning;      // ... and their uploads, until they end
    bool m_scanned = false;
    QList<ManifestFile> m_doneEarly; // files that were stored before the plan
    int m_filesToSend = 0;
    QByteArray m_manifestJson; // m_manifest's bytes and digest, made once it is scanned
    QString m_manifestSha256;
    bool m_manifestMissing = true;
    bool m_manifestStored = false; // on the server, before or by this upload
    bool m_naming = false;
    qsizetype m_nextFile = 0;
    qint64 m_bytesToSend = 0;
    qint64 m_bytesSent = 0; // by files that finished
    qint64 m_bytesOnWire = 0;
    QHash<BlobUpload *, qint64> m_running; // bytes each running file has sent
    BlobUpload *m_manifestUpload = nullptr;
    QStringList m_uploaded;
    QJsonObject m_dataset;
    QTemporaryDir m_scratch;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
