#include "datasetdownload.h"

#include "filehashcache.h"
#include "rangedownload.h"

#include "core/sha256.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace ddl {

DatasetDownload::DatasetDownload(ApiClient *client,
                                 const QString &name,
                                 const QString &destination,
                                 QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_name(name)
    , m_destination(QDir(destination).absolutePath())
    , m_hashCache(std::make_unique<FileHashCache>())
{}

DatasetDownload::~DatasetDownload()
{
    qDeleteAll(m_running.keys());
}

void DatasetDownload::start()
{
    ApiRequest *request = m_client->dataset(m_name);
    connect(request, &ApiRequest::finished, this, [this, request] { handleManifest(request); });
}

const Result<QString> &DatasetDownload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &DatasetDownload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void DatasetDownload::handleManifest(ApiRequest *request)
{
    request->deleteLater();
    if (!request->result()) {
        fail(request->result().error());
        return;
    }
    // The same checks as the server's: a path that would leave the destination is refused.
    const QJsonObject answer = request->result()->json();
    Result<DatasetManifest> manifest = DatasetManifest::parse(
        QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("ddl-dataset")},
                                  {QStringLiteral("version"), 1},
                                  {QStringLiteral("files"), answer.value(QStringLiteral("files"))}})
            .toJson(QJsonDocument::Compact));
    if (!manifest) {
        fail(manifest.error());
        return;
    }
    for (const ManifestFile &file : manifest->files()) {
        const QString target = QDir(m_destination).filePath(file.path);
        const QFileInfo existing(target);
        if (existing.isFile() && existing.size() == file.size) {
            Result<QString> digest = m_hashCache->sha256(existing.absoluteFilePath());
            if (digest && *digest == file.sha256) {
                ++m_kept;
                continue;
            }
        }
        m_toFetch.append(file);
        m_bytesToFetch += file.size;
    }
    m_clock.start(0);
    fetchFiles();
}

void DatasetDownload::fetchFiles()
{
    while (!isFinished() && m_running.size() < FilesAtOnce && m_next < m_toFetch.size()) {
        const ManifestFile file = m_toFetch.at(m_next++);
        const QString target = QDir(m_destination).filePath(file.path);
        if (!QDir().mkpath(QFileInfo(target).absolutePath())) {
            fail(Error::make(ErrorCode::IoError,
                             QStringLiteral("cannot create the folder of %1").arg(target)));
            return;
        }
        auto *download =
            new RangeDownload(m_client, RemoteFile::blob(file.sha256), target, file.sha256);
        m_running.insert(download, 0);
        connect(download, &RangeDownload::progress, this,
                [this, download](const TransferProgress &progress) {
                    m_running[download] = progress.done;
                    reportProgress();
                });
        connect(download, &RangeDownload::finished, this, [this, download, file, target] {
            m_running.remove(download);
            download->deleteLater();
            if (isFinished())
                return;
            if (!download->result()) {
                Error error = download->result().error();
                error.message = QStringLiteral("%1: %2").arg(file.path, error.message);
                fail(error);
                return;
            }
            if (file.executable) {
                QFile::setPermissions(target, QFile::permissions(target) | QFile::ExeOwner
                                                  | QFile::ExeGroup | QFile::ExeOther);
            }
            // Verified while it arrived: a later download into the same folder need not read it.
            m_hashCache->remember(QFileInfo(target).absoluteFilePath(), file.sha256);
            ++m_fetched;
            m_bytesDone += file.size;
            reportProgress();
            fetchFiles();
        });
        download->start();
    }
    if (!isFinished() && m_running.isEmpty() && m_next >= m_toFetch.size()) {
        if (Status saved = m_hashCache->save(); !saved)
            qWarning("%s", qPrintable(saved.error().message)); // costs a re-hash next time only
        m_result = m_destination;
        emit finished();
    }
}

void DatasetDownload::reportProgress()
{
    qint64 done = m_bytesDone;
    for (const qint64 part : std::as_const(m_running))
        done += part;
    emit progress(m_clock.at(std::min(done, m_bytesToFetch), m_bytesToFetch));
}

void DatasetDownload::fail(const Error &error)
{
    for (RangeDownload *download : m_running.keys()) {
        download->disconnect(this);
        download->deleteLater();
    }
    m_running.clear();
    m_result = error;
    emit finished();
}

} // namespace ddl
