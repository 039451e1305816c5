#pragma once

#include "apiclient.h"
#include "transferprogress.h"

#include "packaging/datasetmanifest.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTemporaryDir>
#include <optional>

namespace ddl {

class BlobUpload;

// Puts a dataset folder on the server as a manifest of blobs: hashes the files (on a pool
// thread, so a GUI stays responsive), asks the server which blobs the user does not have yet,
// sends only those (a few files at once, each resumable), and last the manifest itself. The
// same folder uploaded again sends nothing; a folder with one changed file sends that file.
class DatasetUpload : public QObject
{
    Q_OBJECT
public:
    static constexpr int FilesAtOnce = 3;

    DatasetUpload(ApiClient *client, const QString &folder, QObject *parent = nullptr);
    ~DatasetUpload() override;

    void start();
    void cancel();
    bool isFinished() const { return m_result.has_value(); }
    // The manifest's digest once it and every file are on the server.
    const Result<QString> &result() const { return *m_result; }
    const Result<QString> &waitForFinished();

    const DatasetManifest &manifest() const { return m_manifest; }
    int filesToSend() const { return int(m_toSend.size()); }
    qint64 bytesToSend() const { return m_bytesToSend; }
    qint64 bytesOnServer() const { return m_manifest.totalSize() - m_bytesToSend; }

signals:
    void hashing(qint64 done, qint64 total);
    // What is left to send is known: files and bytes.
    void planned(int files, qint64 bytes);
    void progress(const ddl::TransferProgress &progress);
    void fileProgress(const QString &path, qint64 done, qint64 total);
    void finished();

private:
    void handleScanned();
    void askMissing();
    void handleMissing(ApiRequest *request);
    void sendFiles();
    void sendManifest();
    void reportProgress();
    void fail(const Error &error);
    void succeed();

    ApiClient *m_client;
    QString m_folder;
    DatasetManifest m_manifest;
    QFutureWatcher<Result<DatasetManifest>> m_scan;
    QList<ManifestFile> m_toSend;
    qsizetype m_nextFile = 0;
    qint64 m_bytesToSend = 0;
    qint64 m_bytesSent = 0; // by files that finished
    QHash<BlobUpload *, qint64> m_running; // bytes each running file has sent
    BlobUpload *m_manifestUpload = nullptr;
    QTemporaryDir m_scratch;
    ProgressClock m_clock;
    std::optional<Result<QString>> m_result;
};

} // namespace ddl
