#pragma once

#include "packaging/datasetmanifest.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>
#include <optional>

namespace ddl {
class ApiClient;
class BlobUpload;
}

namespace ddl::desktop {

// Uploads a folder as a named dataset (docs/api.md, datasets): hash every file off the GUI
// thread into a manifest, ask the server which blobs it lacks (POST /v1/blobs/missing), upload
// only those, one by one with progress, then the manifest, then name it (POST /v1/datasets).
// A changed folder sends only its changed files. Without a name the manifest is uploaded but not
// named (a job names it by digest); a dry run only finds out what would be sent.
class DatasetUpload : public QObject
{
    Q_OBJECT
public:
    DatasetUpload(ApiClient *client, const QString &name, const QString &folder,
                  QObject *parent = nullptr);
    ~DatasetUpload() override;

    void start();
    void cancel();
    // Stop after asking the server what it lacks (filesToSend, then finished).
    void setDryRun(bool dryRun) { m_dryRun = dryRun; }
    QString name() const { return m_name; }
    int fileCount() const { return int(m_manifest ? m_manifest->files().size() : 0); }
    // Files that had to be sent (the others the server had already).
    QStringList uploadedFiles() const { return m_uploaded; }
    // The manifest's digest once the folder is hashed.
    QString manifestSha256() const { return m_manifest ? m_manifest->sha256() : QString(); }
    qint64 totalBytes() const { return m_manifest ? m_manifest->totalSize() : 0; }
    // Bytes of the files the server lacks (known after filesToSend).
    qint64 bytesToSend() const { return m_bytesToSend; }

    // A dataset name from a folder name: the characters the server allows.
    static QString nameFromFolder(const QString &folder);

signals:
    void hashing(qint64 done, qint64 total);
    void filesToSend(const QStringList &paths);
    void fileProgress(const QString &path, qint64 done, qint64 total);
    // The server had the first bytes of path from an earlier, interrupted upload: only the
    // rest travels.
    void fileResumed(const QString &path, qint64 bytesAlreadySent);
    void fileSent(const QString &path);
    void finished(bool ok, const QString &message);

private:
    void handleScanned();
    void sendNext();
    void createDataset();
    void fail(const QString &message);

    QPointer<ApiClient> m_client;
    QString m_name;
    QString m_folder;
    std::optional<DatasetManifest> m_manifest;
    std::unique_ptr<QTemporaryDir> m_scratch;
    QString m_manifestFile;
    QStringList m_queue; // relative paths still to send; "" is the manifest itself
    QStringList m_uploaded;
    QPointer<BlobUpload> m_current;
    bool m_done = false;
    bool m_dryRun = false;
    qint64 m_bytesToSend = 0;
};

} // namespace ddl::desktop
