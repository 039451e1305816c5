#pragma once

#include "apiclient.h"

#include "packaging/datasetmanifest.h"

#include <QFutureWatcher>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <memory>
#include <optional>

namespace ddl {

class DataTransferControl;

// The bodies of one upload's batches, kept for the next batch: a fresh 8 MiB buffer is mapped
// anew by the C library and costs 2,048 page faults to fill (7% of ddlcli's CPU with 10,000
// small files). Keeps at most MaxKept; any thread.
class BatchBufferPool
{
public:
    static constexpr int MaxKept = 4;
    QByteArray take();
    void give(QByteArray buffer);

private:
    QMutex m_mutex;
    QList<QByteArray> m_free;
};

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

    // buffers: where the body comes from and goes back to (none: a buffer of its own).
    BlobBatchUpload(ApiClient *client,
                    const QString &folder,
                    const QList<ManifestFile> &files,
                    std::shared_ptr<BatchBufferPool> buffers = {},
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
    std::shared_ptr<BatchBufferPool> m_buffers;
    // Shared with the sending thread, which a deleted batch does not wait for.
    std::shared_ptr<DataTransferControl> m_control;
    QFutureWatcher<Status> m_sent;
    std::optional<Status> m_result;
};

} // namespace ddl
