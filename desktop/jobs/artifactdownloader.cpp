#include "artifactdownloader.h"

#include "api/apiclient.h"
#include "api/rangedownload.h"
#include "core/errortext.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ArtifactDownloader::ArtifactDownloader(ApiClient *client, const QString &jobUuid, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
{}

void ArtifactDownloader::start(const QJsonArray &files, const QString &destination)
{
    m_files = files;
    m_destination = destination;
    m_index = 0;
    m_doneBytes = 0;
    m_totalBytes = 0;
    for (const QJsonValue &file : files)
        m_totalBytes += file.toObject().value("size"_L1).toInteger();
    next();
}

bool ArtifactDownloader::isRunning() const
{
    return !m_current.isNull();
}

void ArtifactDownloader::cancel()
{
    if (m_current) {
        m_current->deleteLater();
        m_current = nullptr;
        emit finished(false, tr("Download cancelled; start it again to resume."));
    }
}

void ArtifactDownloader::next()
{
    if (m_index >= m_files.size()) {
        m_current = nullptr;
        emit finished(true, tr("Downloaded %n file(s) to %1", nullptr, int(m_files.size()))
                                .arg(QDir::toNativeSeparators(m_destination)));
        return;
    }
    if (!m_client) {
        emit finished(false, tr("Not connected to a server."));
        return;
    }
    const QJsonObject file = m_files.at(m_index).toObject();
    const QString path = file.value("path"_L1).toString();
    // The server checks artifact paths; the client does too before it writes anywhere.
    if (path.isEmpty() || path.startsWith(u'/') || path.split(u'/').contains(u".."_s)) {
        emit finished(false, tr("The server listed an unsafe path: %1").arg(path));
        return;
    }
    const QString target = QDir(m_destination).filePath(path);
    QDir().mkpath(QFileInfo(target).absolutePath());
    QUrlQuery query;
    query.addQueryItem(u"path"_s, path);
    auto *download = new RangeDownload(m_client, u"/v1/jobs/"_s + m_jobUuid
                                                     + u"/artifacts/file"_s,
                                       query, target, file.value("sha256"_L1).toString(), this);
    m_current = download;
    const qint64 size = file.value("size"_L1).toInteger();
    connect(download, &RangeDownload::progress, this, [this](const TransferProgress &progress) {
        emit this->progress(m_doneBytes + progress.done, m_totalBytes);
    });
    connect(download, &RangeDownload::finished, this, [this, download, size, path] {
        download->deleteLater();
        if (m_current != download)
            return;
        if (!download->result()) {
            m_current = nullptr;
            emit finished(false, tr("Could not download %1: %2")
                                     .arg(path, ErrorText::describe(download->result().error())));
            return;
        }
        m_doneBytes += size;
        ++m_index;
        emit progress(m_doneBytes, m_totalBytes);
        next();
    });
    download->start();
}

} // namespace ddl::desktop
