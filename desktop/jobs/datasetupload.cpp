#include "datasetupload.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "core/errortext.h"
#include "core/requestcallback.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

namespace {
struct Scanned
{
    std::optional<DatasetManifest> manifest;
    Error error;
    QString manifestFile;
};
} // namespace

DatasetUpload::DatasetUpload(ApiClient *client, const QString &name, const QString &folder,
                             QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_name(name)
    , m_folder(folder)
{}

DatasetUpload::~DatasetUpload() = default;

QString DatasetUpload::nameFromFolder(const QString &folder)
{
    static const QRegularExpression invalid(u"[^A-Za-z0-9._-]+"_s);
    QString name = QFileInfo(folder).fileName();
    name.replace(invalid, u"-"_s);
    while (!name.isEmpty() && !name.front().isLetterOrNumber())
        name.remove(0, 1);
    return name.left(100).isEmpty() ? u"dataset"_s : name.left(100);
}

void DatasetUpload::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    emit finished(false, message);
}

void DatasetUpload::cancel()
{
    if (m_current)
        m_current->deleteLater();
    fail(tr("Upload of %1 cancelled; drop the folder again to resume.").arg(m_name));
}

void DatasetUpload::start()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    auto *watcher = new QFutureWatcher<Scanned>(this);
    connect(watcher, &QFutureWatcher<Scanned>::finished, this, [this, watcher] {
        watcher->deleteLater();
        const Scanned scanned = watcher->result();
        if (!scanned.manifest) {
            fail(ErrorText::describe(scanned.error));
            return;
        }
        m_manifest = scanned.manifest;
        m_manifestFile = scanned.manifestFile;
        handleScanned();
    });
    // Hashing every file is the slow part: off the GUI thread, progress through a queued call.
    QPointer<DatasetUpload> self(this);
    watcher->setFuture(QtConcurrent::run([folder = m_folder, file = m_scratch->filePath(
                                                                 u"manifest.json"_s), self] {
        Scanned scanned;
        Result<DatasetManifest> manifest = DatasetManifest::scan(
            folder, [self](qint64 done, qint64 total) {
                QMetaObject::invokeMethod(self, [self, done, total] {
                    if (self)
                        emit self->hashing(done, total);
                });
            });
        if (!manifest) {
            scanned.error = manifest.error();
            return scanned;
        }
        QFile out(file);
        if (!out.open(QIODevice::WriteOnly) || out.write(manifest->toJson()) < 0) {
            scanned.error = Error::make(u"io_error"_s, out.errorString());
            return scanned;
        }
        scanned.manifest = *manifest;
        scanned.manifestFile = file;
        return scanned;
    }));
}

void DatasetUpload::handleScanned()
{
    if (m_done || !m_client)
        return;
    QJsonArray digests;
    for (const ManifestFile &file : m_manifest->files())
        digests.append(file.sha256);
    digests.append(m_manifest->sha256());
    whenFinished(m_client->postJson(u"/v1/blobs/missing"_s, {{"sha256"_L1, digests}}), this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result) {
                         fail(ErrorText::describe(result.error()));
                         return;
                     }
                     QSet<QString> missing;
                     for (const QJsonValue &digest : result->json().value("missing"_L1).toArray())
                         missing.insert(digest.toString());
                     for (const ManifestFile &file : m_manifest->files()) {
                         // One upload per digest: identical files are one blob.
                         if (missing.remove(file.sha256)) {
                             m_queue.append(file.path);
                             m_bytesToSend += file.size;
                         }
                     }
                     emit filesToSend(m_queue);
                     if (m_dryRun) {
                         m_done = true;
                         emit finished(true, QString());
                         return;
                     }
                     if (missing.contains(m_manifest->sha256()))
                         m_queue.append(QString());
                     sendNext();
                 });
}

void DatasetUpload::sendNext()
{
    if (m_done || !m_client)
        return;
    if (m_queue.isEmpty()) {
        createDataset();
        return;
    }
    const QString path = m_queue.takeFirst();
    QString local = m_manifestFile;
    QString sha256 = m_manifest->sha256();
    if (!path.isEmpty()) {
        local = QDir(m_folder).filePath(path);
        for (const ManifestFile &file : m_manifest->files()) {
            if (file.path == path)
                sha256 = file.sha256;
        }
    }
    auto *blob = new BlobUpload(m_client, local, sha256, this);
    m_current = blob;
    connect(blob, &BlobUpload::progress, this,
            [this, path, blob, first = true](const TransferProgress &progress) mutable {
                // The resume offset is known once the server has answered the create.
                if (first && blob->skippedBytes() > 0)
                    emit fileResumed(path, blob->skippedBytes());
                first = false;
                if (!path.isEmpty())
                    emit fileProgress(path, progress.done, progress.total);
            });
    connect(blob, &BlobUpload::finished, this, [this, blob, path] {
        blob->deleteLater();
        if (m_done)
            return;
        if (!blob->result()) {
            fail(tr("Could not upload %1: %2")
                     .arg(path.isEmpty() ? tr("the manifest") : path,
                          ErrorText::describe(blob->result().error())));
            return;
        }
        if (!path.isEmpty()) {
            m_uploaded.append(path);
            emit fileSent(path);
        }
        sendNext();
    });
    blob->start();
}

void DatasetUpload::createDataset()
{
    if (m_name.isEmpty()) {
        // For a job: the manifest is on the server, the job names it by digest.
        m_done = true;
        emit finished(true, tr("%n file(s) sent.", nullptr, int(m_uploaded.size())));
        return;
    }
    const QJsonObject body{{"name"_L1, m_name}, {"manifest_sha256"_L1, m_manifest->sha256()}};
    whenFinished(m_client->postJson(u"/v1/datasets"_s, body), this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result) {
                         fail(ErrorText::describe(result.error()));
                         return;
                     }
                     m_done = true;
                     emit finished(true, tr("Dataset %1: %n file(s), %2 sent.", nullptr,
                                            fileCount())
                                             .arg(m_name)
                                             .arg(m_uploaded.size()));
                 });
}

} // namespace ddl::desktop
