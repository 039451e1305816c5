#include "artifactdownload.h"

#include "core/sha256.h"
#include "rangedownload.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonObject>

using namespace Qt::Literals::StringLiterals;

namespace ddl {

ArtifactDownload::ArtifactDownload(ApiClient *client, const QString &jobUuid, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
{}

ArtifactDownload::~ArtifactDownload() = default;

Result<QString> ArtifactDownload::safeRelativePath(const QString &path)
{
    auto refuse = [&path](const QString &why) {
        return Error::make(ErrorCode::UnsafePath,
                           u"the server listed the artifact '%1', which %2; it was not "
                           "downloaded"_s.arg(path, why),
                           u"path"_s);
    };
    if (path.isEmpty())
        return refuse(u"is empty"_s);
    if (path.startsWith(u'/') || path.contains(u'\\') || (path.size() > 1 && path.at(1) == u':'))
        return refuse(u"is not a relative path"_s);
    if (path.contains(QChar(0)))
        return refuse(u"holds a NUL character"_s);
    for (const QString &part : path.split(u'/')) {
        if (part == u".."_s)
            return refuse(u"leads out of the destination with '..'"_s);
        if (part.isEmpty() || part == u"."_s)
            return refuse(u"has an empty or '.' part"_s);
    }
    return path;
}

Result<QList<ArtifactFile>> ArtifactDownload::parseList(const QJsonArray &files)
{
    QList<ArtifactFile> list;
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        Result<QString> path = safeRelativePath(file.value("path"_L1).toString());
        if (!path)
            return path.error();
        const QString sha256 = file.value("sha256"_L1).toString();
        if (!isSha256Hex(sha256)) {
            return Error::make(
                ErrorCode::BadAnswer,
                u"the server listed the artifact '%1' without a valid sha256"_s.arg(*path));
        }
        list.append({*path, file.value("size"_L1).toInteger(), sha256});
    }
    return list;
}

void ArtifactDownload::start(const QList<ArtifactFile> &files, const QString &destination)
{
    m_files = files;
    m_destination = QDir(destination).absolutePath();
    m_index = 0;
    m_doneBytes = 0;
    m_totalBytes = 0;
    m_result.reset();
    for (const ArtifactFile &file : files)
        m_totalBytes += file.size;
    if (!QDir().mkpath(m_destination)) {
        finish(Error::make(
            ErrorCode::IoError, u"cannot create the folder %1"_s.arg(m_destination), u"dest"_s));
        return;
    }
    next();
}

void ArtifactDownload::cancel()
{
    if (m_current)
        m_current->deleteLater();
    if (!isFinished())
        finish(Error::make(ErrorCode::Aborted, u"the download was cancelled"_s));
}

const Result<QList<ArtifactFile>> &ArtifactDownload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &ArtifactDownload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

// True when path lies inside folder once links are followed.
static bool staysInside(const QString &folder, const QString &path)
{
    const QString root = QFileInfo(folder).canonicalFilePath();
    const QString parent = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    return !root.isEmpty() && !parent.isEmpty()
           && (parent == root || parent.startsWith(root + u'/'));
}

void ArtifactDownload::next(bool retry)
{
    if (m_index >= m_files.size()) {
        finish(m_files);
        return;
    }
    ArtifactFile &file = m_files[m_index];
    const QString target = m_destination + u'/' + file.path;
    if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !staysInside(m_destination, target)) {
        finish(Error::make(ErrorCode::UnsafePath,
                           u"%1 would be written outside %2 (through a link?); nothing more was "
                           "downloaded"_s.arg(target, m_destination)));
        return;
    }
    auto upToDate = [&] {
        const Result<QString> digest = sha256OfFile(target);
        return digest && *digest == file.sha256;
    };
    if (!retry && QFileInfo(target).isFile() && QFileInfo(target).size() == file.size
        && upToDate()) {
        m_doneBytes += file.size;
        emit progress(m_doneBytes, m_totalBytes);
        emit fileDone(file);
        ++m_index;
        next();
        return;
    }
    if (!m_client) {
        finish(Error::make(ErrorCode::Aborted, u"the connection to the server was closed"_s));
        return;
    }
    const bool resumed = QFileInfo::exists(target + u".part"_s);
    auto *download = new RangeDownload(m_client, RemoteFile::artifact(m_jobUuid, file.path),
                                       target, file.sha256, this);
    m_current = download;
    connect(download, &RangeDownload::progress, this, [this, path = file.path](auto progress) {
        emit fileProgress(path, progress);
        emit this->progress(m_doneBytes + progress.done, m_totalBytes);
    });
    connect(download, &RangeDownload::finished, this, [this, download, resumed, retry] {
        download->deleteLater();
        if (m_current != download || isFinished())
            return;
        m_current = nullptr;
        ArtifactFile &file = m_files[m_index];
        if (!download->result()) {
            // A .part left by something else fails the digest and is removed: once more from 0.
            if (resumed && !retry && download->result().error().is(ErrorCode::DigestMismatch)) {
                next(true);
                return;
            }
            Error error = download->result().error();
            error.message = u"%1: %2"_s.arg(file.path, error.message);
            finish(error);
            return;
        }
        file.downloaded = true;
        m_doneBytes += file.size;
        emit fileDone(file);
        ++m_index;
        next();
    });
    download->start();
}

void ArtifactDownload::finish(Result<QList<ArtifactFile>> result)
{
    m_current = nullptr;
    m_result = std::move(result);
    emit finished();
}

} // namespace ddl
