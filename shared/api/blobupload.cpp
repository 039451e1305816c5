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

BlobUpload::~BlobUpload()
{
    dropChunks();
    delete m_createRequest;
}

void BlobUpload::start()
{
    if (!m_file.open(QIODevice::ReadOnly)) {
        fail(Error::make(ErrorCode::IoError,
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

void BlobUpload::cancel()
{
    if (!isFinished())
        fail(Error::make(ErrorCode::Aborted, QStringLiteral("the upload was cancelled")));
}

void BlobUpload::createUpload()
{
    dropChunks();
    m_createRequest = m_client->createUpload(m_size, m_sha256);
    ApiRequest *request = m_createRequest;
    connect(request, &ApiRequest::finished, this, [this, request] { handleCreated(request); });
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

void BlobUpload::handleCreated(ApiRequest *request)
{
    m_createRequest = nullptr;
    request->deleteLater();
    if (!request->result()) {
        fail(request->result().error());
        return;
    }
    const QJsonObject answer = request->result()->json();
    const bool complete = answer.value(QStringLiteral("complete")).toBool();
    m_uploadId = answer.value(QStringLiteral("id")).toString();
    m_acked = complete ? m_size : answer.value(QStringLiteral("offset")).toInteger();
    m_nextSend = m_acked;
    if (!m_clock.isStarted()) {
        m_skipped = m_acked;
        m_clock.start(m_acked);
    }
    if (complete) {
        reportProgress();
        m_result = m_sha256;
        emit finished();
        return;
    }
    sendChunks();
}

void BlobUpload::sendChunks()
{
    while (m_nextSend < m_size && m_inFlight.size() < ChunksInFlight
           && (m_inFlight.isEmpty() || m_inFlight.last().sent == m_inFlight.last().length)) {
        const qint64 length = std::min(ChunkSize, m_size - m_nextSend);
        QByteArray bytes;
        if (m_file.seek(m_nextSend))
            bytes = m_file.read(length);
        if (bytes.size() != length) {
            fail(Error::make(ErrorCode::IoError,
                             QStringLiteral("%1 changed while it was being uploaded; upload it "
                                            "again")
                                 .arg(m_path)));
            return;
        }
        ApiRequest *request = m_client->sendChunk(m_uploadId, m_nextSend, bytes);
        m_inFlight.append(Chunk{request, m_nextSend, length, 0});
        m_nextSend += length;
        connect(request, &ApiRequest::uploadProgress, this, [this, request](qint64 sent, qint64) {
            for (Chunk &chunk : m_inFlight) {
                if (chunk.request == request)
                    chunk.sent = std::min(sent, chunk.length);
            }
            reportProgress();
            sendChunks();
        });
        connect(request, &ApiRequest::finished, this,
                [this, request] { handleChunkAnswer(request); });
    }
}

void BlobUpload::handleChunkAnswer(ApiRequest *request)
{
    const auto chunk = std::find_if(m_inFlight.begin(), m_inFlight.end(),
                                    [request](const Chunk &c) { return c.request == request; });
    if (chunk == m_inFlight.end())
        return;
    m_inFlight.erase(chunk);
    request->deleteLater();
    if (!request->result()) {
        // Another upload of the same bytes by the same owner moved the upload on or finished
        // it, or a chunk was corrupted on the way: ask the server where things stand.
        const Error &error = request->result().error();
        if ((error.is(ErrorCode::NotFound) || error.is(ErrorCode::OffsetMismatch) ||
             error.is(ErrorCode::Conflict) || error.is(ErrorCode::ChunkCorrupted)) &&
            m_restarts++ < MaxRestarts) {
            createUpload();
            return;
        }
        fail(request->result().error());
        return;
    }
    const QJsonObject answer = request->result()->json();
    m_acked = std::max(m_acked, answer.value(QStringLiteral("offset")).toInteger());
    reportProgress();
    if (answer.value(QStringLiteral("complete")).toBool()) {
        dropChunks();
        m_result = m_sha256;
        emit finished();
        return;
    }
    sendChunks();
}

void BlobUpload::reportProgress()
{
    qint64 done = m_acked;
    for (const Chunk &chunk : std::as_const(m_inFlight))
        done += chunk.sent;
    emit progress(m_clock.at(std::min(done, m_size), m_size));
}

void BlobUpload::dropChunks()
{
    for (const Chunk &chunk : std::as_const(m_inFlight)) {
        chunk.request->disconnect(this);
        chunk.request->deleteLater();
    }
    m_inFlight.clear();
}

void BlobUpload::fail(const Error &error)
{
    dropChunks();
    m_result = error;
    emit finished();
}

} // namespace ddl
