#include "blobupload.h"

#include "core/sha256.h"

#include <QEventLoop>
#include <QJsonObject>

namespace ddl {

BlobUpload::BlobUpload(ApiClient *client, const QString &filePath, const QString &sha256Hex,
                       QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_path(filePath)
    , m_sha256(sha256Hex)
    , m_file(filePath)
{}

void BlobUpload::start()
{
    if (!m_file.open(QIODevice::ReadOnly)) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("cannot read %1: %2").arg(m_path, m_file.errorString())));
        return;
    }
    m_size = m_file.size();
    if (m_sha256.isEmpty()) {
        Result<QString> digest = sha256OfFile(m_path);
        if (!digest) {
            fail(digest.error());
            return;
        }
        m_sha256 = *digest;
    }
    createUpload();
}

void BlobUpload::createUpload()
{
    m_request = m_client->postJson(QStringLiteral("/v1/uploads"),
                                   QJsonObject{{QStringLiteral("size"), m_size},
                                               {QStringLiteral("sha256"), m_sha256}});
    connect(m_request, &ApiRequest::finished, this, &BlobUpload::handleCreated);
}

const Result<QString> &BlobUpload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &BlobUpload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void BlobUpload::handleCreated()
{
    ApiRequest *request = std::exchange(m_request, nullptr);
    request->deleteLater();
    if (!request->result()) {
        fail(request->result().error());
        return;
    }
    const QJsonObject answer = request->result()->json();
    m_uploadId = answer.value(QStringLiteral("id")).toString();
    m_offset = answer.value(QStringLiteral("offset")).toInteger();
    m_skipped = answer.value(QStringLiteral("complete")).toBool() ? m_size : m_offset;
    m_clock.start(m_offset);
    if (answer.value(QStringLiteral("complete")).toBool()) {
        emit progress(m_clock.at(m_size, m_size));
        m_result = m_sha256;
        emit finished();
        return;
    }
    sendNextChunk();
}

void BlobUpload::sendNextChunk()
{
    if (!m_file.seek(m_offset)) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("cannot seek in %1: %2").arg(m_path, m_file.errorString())));
        return;
    }
    const QByteArray chunk = m_file.read(std::min(ChunkSize, m_size - m_offset));
    if (chunk.size() != std::min(ChunkSize, m_size - m_offset)) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("%1 changed while it was being uploaded; upload it again")
                             .arg(m_path)));
        return;
    }
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("offset"), QString::number(m_offset));
    m_request = m_client->sendBytes("PUT", QStringLiteral("/v1/uploads/") + m_uploadId, chunk,
                                    query);
    connect(m_request, &ApiRequest::finished, this, &BlobUpload::handleChunkAnswer);
}

void BlobUpload::handleChunkAnswer()
{
    ApiRequest *request = std::exchange(m_request, nullptr);
    request->deleteLater();
    if (!request->result()) {
        // Another upload of the same bytes by the same owner shares this one on the server and
        // moved it on, or finished it: ask the server again where things stand.
        const QString code = request->result().error().code;
        if ((code == QLatin1String("not_found") || code == QLatin1String("offset_mismatch"))
            && m_restarts++ < MaxRestarts) {
            createUpload();
            return;
        }
        fail(request->result().error());
        return;
    }
    const QJsonObject answer = request->result()->json();
    m_offset = answer.value(QStringLiteral("offset")).toInteger();
    emit progress(m_clock.at(m_offset, m_size));
    if (answer.value(QStringLiteral("complete")).toBool()) {
        m_result = m_sha256;
        emit finished();
        return;
    }
    sendNextChunk();
}

void BlobUpload::fail(const Error &error)
{
    m_result = error;
    emit finished();
}

} // namespace ddl
