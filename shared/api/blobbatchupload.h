#pragma once

#include "apiclient.h"

#include "packaging/datasetmanifest.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <memory>
#include <optional>

namespace ddl {

class DataTransferControl;

// Sends many small files of a folder in one request (POST /v1/blobs/batch): a dataset of
// thousands of small files costs a few requests and server syncs instead of a resumable upload
// of three round trips and an fsync each. The files are read and the batch sent on a pool thread
// over a DataConnection (Qt's HTTP layer would write it 16 KiB per event-loop turn), so a GUI
// stays responsive; a batch is bounded (BatchBytes), so memory is too. A batch with a file that
// changed since it was hashed stores none of them, and sending a batch again is always safe.
class BlobBatchUpload : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 SmallFileBytes = 256 * 1024; // larger files go through BlobUpload
    static constexpr qint64 BatchBytes = 8 * 1024 * 1024;
    static constexpr int BatchFiles = 2000;

    // Cuts the files into batches within BatchBytes and BatchFiles, in their order.
    static QList<QList<ManifestFile>> plan(const QList<ManifestFile> &files);

    BlobBatchUpload(ApiClient *client, const QString &folder, const QList<ManifestFile> &files,
                    QObject *parent = nullptr);
    // Deleted unfinished (a cancelled or failed dataset upload): the request stops too.
    ~BlobBatchUpload() override;

    void start();
    const QList<ManifestFile> &files() const { return m_files; }
    bool isFinished() const { return m_result.has_value(); }
    const Status &result() const { return *m_result; }

signals:
    void finished();

private:
    void handleSent();
    void finish(const Status &status);

    QPointer<ApiClient> m_client;
    QString m_folder;
    QList<ManifestFile> m_files;
    // Shared with the sending thread, which a deleted batch does not wait for.
    std::shared_ptr<DataTransferControl> m_control;
    QFutureWatcher<Status> m_sent;
    std::optional<Status> m_result;
};

} // namespace ddl
